// A classic script, run before the page's module: if that module never starts (a file that cannot be
// fetched, a syntax error, an old browser), the page says so instead of showing "Loading…" forever. Its
// <script> tag names the element for the message (data-host), the message's title (data-title) and what to
// say when a script cannot be loaded (data-load-error). Messages are set as text.
(function () {
  var script = document.currentScript;
  var hostId = script.getAttribute('data-host');
  var heading = script.getAttribute('data-title');
  var loadError = script.getAttribute('data-load-error') || 'The page’s scripts could not be loaded.';

  window.bootFailed = function (message) {
    if (document.documentElement.dataset.ready) return;
    document.documentElement.dataset.ready = 'error';
    function show() {
      var host = document.getElementById(hostId);
      if (!host) return;
      host.removeAttribute('aria-busy');
      var box = document.createElement('div');
      box.className = 'fatal';
      box.setAttribute('role', 'alert');
      var title = document.createElement('h2');
      title.textContent = heading;
      var text = document.createElement('p');
      text.textContent = message;
      box.append(title, text);
      host.replaceChildren(box);
    }
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', show);
    else show();
  };

  // Capture phase: a <script> that cannot be fetched fires 'error' on itself, which does not bubble.
  window.addEventListener(
    'error',
    function (e) {
      if (document.documentElement.dataset.ready) return;
      if (e.target && e.target.tagName === 'SCRIPT') window.bootFailed(loadError);
      else if (e.message) window.bootFailed('A script of the page failed: ' + e.message);
    },
    true,
  );
})();
