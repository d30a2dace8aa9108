// Inlined first in notebook.html's head (vite.config.js, notebookEarlyRegistration; the page's policy allows it by
// its hash): on a first visit the site's service worker is registered as the head is parsed, not once the page's
// modules have loaded, so that it takes control, and the page reloads isolated (web/notebook/view.js), sooner.
// view.js registers it again, which finds this registration.
if (navigator.serviceWorker && !navigator.serviceWorker.controller) {
  try {
    navigator.serviceWorker.register('./notebook-sw.js').catch(() => {});
  } catch {
    // no service worker here: view.js says what Stop does then
  }
}
