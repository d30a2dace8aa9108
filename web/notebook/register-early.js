// Inlined first in notebook.html's head (vite.config.js, notebookEarlyRegistration; the page's policy allows it by
// its hash): on a first visit the site's service worker is registered as the head is parsed, not once the page's
// modules have loaded, and the page reloads, isolated, the moment it takes control (once per tab, with the key
// web/notebook/view.js reads) unless view.js has already gone on without it (notebookIsolation 'settled').
if (navigator.serviceWorker && !navigator.serviceWorker.controller) {
  try {
    navigator.serviceWorker.register('./notebook-sw.js').catch(() => {});
    navigator.serviceWorker.addEventListener('controllerchange', () => {
      const key = 'attention-lab.isolation-reload';
      if (globalThis.crossOriginIsolated || window.notebookIsolation === 'settled' || sessionStorage.getItem(key) === '1') return;
      sessionStorage.setItem(key, '1');
      window.notebookIsolation = 'reloading';
      location.reload();
    }, { once: true });
  } catch {
    // no service worker here: view.js says what Stop does then
  }
}
