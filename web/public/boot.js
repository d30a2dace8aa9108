// A classic script, run before the page's module: if that module never starts (a file that cannot be
// fetched, a syntax error, an old browser), the page says so instead of showing "Loading…" forever. Its
// <script> tag names the element for the message (data-host), the message's title (data-title) and what to
// say when a script cannot be loaded (data-load-error). Messages are set as text.
//
// It also starts fetching the WebAssembly build the page will pick, with its Emscripten script, at once:
// the page's module asks for them only once it has loaded and run, a round trip later. The build writes
// their addresses on the tag (data-preload-<flavour>: the script, then the .wasm); the page's fetch() and
// import() then take the preloaded responses.
(function () {
  var script = document.currentScript;
  preloadCore(script);
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

  function preloadCore(script) {
    if (typeof WebAssembly !== 'object' || !script.getAttribute('data-preload-scalar')) return;
    // wasm/index.js's default in a page, made the same way: its SIMD probe, (module (func (result v128)
    // i32.const 0 i8x16.splat i8x16.popcnt)); the threaded build only when a thread count is asked for
    var probe = new Uint8Array([
      0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
    ]);
    var flavour = WebAssembly.validate(probe) ? 'simd' : 'scalar';
    var files = (script.getAttribute('data-preload-' + flavour) || '').split(' ');
    if (files.length !== 2) return;
    var wasm = document.createElement('link');
    wasm.rel = 'preload';
    wasm.as = 'fetch';
    wasm.crossOrigin = 'anonymous'; // as the page's fetch() asks for it: CORS mode, same-origin credentials
    wasm.href = files[1];
    var module = document.createElement('link');
    module.rel = 'modulepreload';
    module.href = files[0];
    document.head.append(wasm, module);
  }
})();
