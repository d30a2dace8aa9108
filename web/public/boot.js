// A classic script, run before the page's module: if that module never starts (a file that cannot be
// fetched, a syntax error, an old browser), the page says so instead of showing "Loading…" forever. Its
// <script> tag names the element for the message (data-host), the message's title (data-title) and what to
// say when a script cannot be loaded (data-load-error). Messages are set as text.
//
// It also starts on the WebAssembly build the page will pick at once, as the HTML's first bytes are read,
// instead of when the page's module has come and run: it compiles it by streaming, off this thread, while the
// page's scripts download and parse, and leaves the compilation in window.bootCore ({ url, compiled }), which
// the loader takes for that file (wasm/flavours.js). On the site the build writes the addresses of its builds
// on the tag (data-preload-<flavour>: the Emscripten script, preloaded here, then the .wasm); in the single
// file the tag carries the SIMD .wasm itself, gzipped (data-core-gzip).
(function () {
  var script = document.currentScript;
  var simd = typeof WebAssembly === 'object' && WebAssembly.validate(simdProbe());
  compileCore(script);
  compileInlinedCore(script);
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

  // wasm/index.js's SIMD probe: (module (func (result v128) i32.const 0 i8x16.splat i8x16.popcnt))
  function simdProbe() {
    return new Uint8Array([
      0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
    ]);
  }

  function compileCore(script) {
    if (typeof WebAssembly !== 'object' || !script.getAttribute('data-preload-scalar')) return;
    // wasm/index.js's default in a page: SIMD where the probe validates; the threaded build only when a
    // thread count is asked for
    var flavour = simd ? 'simd' : 'scalar';
    var files = (script.getAttribute('data-preload-' + flavour) || '').split(' ');
    if (files.length !== 2 || typeof fetch !== 'function') return;
    var module = document.createElement('link');
    module.rel = 'modulepreload';
    module.href = files[0];
    document.head.append(module);
    var url = new URL(files[1], document.baseURI).href;
    // as wasm/index.js's compileWasm(): streamed where the host labels it application/wasm, else from the bytes
    var compiled = fetch(url, { credentials: 'same-origin' }).then(function (response) {
      if (!response.ok) throw new Error('could not fetch ' + url + ' (HTTP ' + response.status + ')');
      if (typeof WebAssembly.compileStreaming !== 'function') return response.arrayBuffer().then(compileBytes);
      return WebAssembly.compileStreaming(response.clone()).catch(function () {
        return response.arrayBuffer().then(compileBytes);
      });
    });
    compiled.catch(function () {}); // reported by the loader, which takes it (not as an unhandled rejection now)
    window.bootCore = { url: url, compiled: compiled };
  }

  function compileBytes(bytes) {
    return WebAssembly.compile(bytes);
  }

  // The single file's core (the loader takes window.bootCore: wasm/flavours-simd-only.js). gzip + base64 is
  // the smallest form of the bytes an HTML file can hold that the browser unpacks natively (a third of the raw
  // bytes' base64); compileStreaming compiles them as they are inflated.
  function compileInlinedCore(script) {
    var packed = script.getAttribute('data-core-gzip');
    if (!packed || !simd) return; // without SIMD the loader says what to do instead
    script.removeAttribute('data-core-gzip'); // the page's copy of the text is not needed again
    // when the file's first step is drawn into it, after that step's paint (scripts/prerender-single-file.mjs):
    // the unpacking holds this thread for milliseconds, and the compiling the machine's other cores
    var painted = window.bootDrawnPainted;
    var compiled = painted ? painted.then(function () {
      return unpackAndCompile(packed);
    }) : unpackAndCompile(packed);
    compiled.catch(function () {}); // reported by the loader, which takes it (not as an unhandled rejection now)
    window.bootCore = { url: 'inline', compiled: compiled };
  }

  /** The compilation of the core, gzipped and in base64 (packed). */
  function unpackAndCompile(packed) {
    if (typeof DecompressionStream !== 'function' || typeof Response !== 'function') {
      return Promise.reject(new Error('this browser cannot unpack the page’s inlined WebAssembly (it has no ' +
        'DecompressionStream): update it (Chrome 80, Firefox 113, Safari 16.4 and later), or open the published site'));
    }
    var bytes = Uint8Array.fromBase64 ? Uint8Array.fromBase64(packed) : Uint8Array.from(atob(packed), function (c) {
      return c.charCodeAt(0);
    });
    // a stream of the bytes made here (a Blob's would send them to the browser process and back), ended in a
    // task of its own: the compilation's end, which waits for its functions to be validated on other threads,
    // then waits there, after the parser has read on, instead of in this script, which holds the parser
    var gzipped = new ReadableStream({
      start: function (controller) {
        controller.enqueue(bytes);
        var later = new MessageChannel(); // a task soon after this one (a timer's is throttled in a hidden tab)
        later.port1.onmessage = function () {
          later.port1.close();
          try {
            controller.close();
          } catch (alreadyEnded) {
            // the inflating or the compilation failed first (the loader reports that), which cancelled this stream
          }
        };
        later.port2.postMessage(null);
      },
    });
    var wasm = new Response(gzipped.pipeThrough(new DecompressionStream('gzip')), {
      headers: { 'Content-Type': 'application/wasm' },
    });
    return WebAssembly.compileStreaming ? WebAssembly.compileStreaming(wasm) : wasm.arrayBuffer().then(compileBytes);
  }
})();
