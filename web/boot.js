// A classic script, run before the page's module: if that module never starts (a missing file, a syntax
// error, an old browser), the page says so instead of showing "Loading…" forever. Its <script> tag names
// the element for the message (data-host) and the message's title (data-title). Messages are set as text.
(function () {
  var script = document.currentScript;
  var hostId = script.getAttribute('data-host');
  var heading = script.getAttribute('data-title');

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

  window.addEventListener('error', function (e) {
    if (!document.documentElement.dataset.ready && e.filename && /\/web\//.test(e.filename)) {
      window.bootFailed('A script of the page failed: ' + e.message);
    }
  });
})();
