// The single file's loader of its later chunks (vite.config.js, inertChunks, inlines it before the page's
// module). The build's chunks other than the page's module (KaTeX, the diagnose search) are carried as inert text, script elements
// of type text/plain named by their data-chunk attribute, which the browser reads as text but does not compile
// while it reads the file. The page's dynamic import of one, import(bootChunk('name.js')), makes a module of its
// text from a blob: URL then (the file's policy allows blob: scripts for this alone): after the first paint.
// A chunk's static imports of other such chunks are written "chunk:name.js" and become their blob: URLs too; what
// a chunk imports from the page's inline module comes from a stand-in chunk named as that module, which re-exports
// window.bootPageExports (vite.config.js, pageExports).
// A chunk's stylesheet (KaTeX's: 186 KB of fonts the first step does not use) is carried the same way, in a
// text/plain script named by data-style-of, and becomes a <style> at the end of the head (after the page's own, as
// it was in the one stylesheet; the policy allows its text by its hash) as the chunk is first imported.
(function () {
  var urls = {};
  var making = {};

  window.bootChunk = function chunkUrl(name) {
    if (urls[name]) return urls[name];
    if (making[name]) throw new Error('the page’s chunks import each other in a cycle (' + name + ')');
    var element = document.querySelector('script[type="text/plain"][data-chunk="' + name + '"]');
    if (!element) throw new Error('the page has no chunk named ' + name);
    making[name] = true;
    var styles = document.querySelectorAll('script[type="text/plain"][data-style-of="' + name + '"]');
    for (var i = 0; i < styles.length; i++) {
      var style = document.createElement('style');
      style.textContent = styles[i].textContent;
      document.head.append(style);
      styles[i].remove();
    }
    var code = element.textContent.replace(/"chunk:([\w.-]+)"/g, function (_, imported) {
      return JSON.stringify(chunkUrl(imported));
    });
    element.remove(); // its text is in the blob now
    urls[name] = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
    return urls[name];
  };
})();
