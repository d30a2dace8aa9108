// The site's service worker (built as notebook-sw.js beside the pages, registered by the notebook): on a static
// host, which sends no headers of its own, it gives the notebook's worker script the Content-Security-Policy
// that a host with headers sends. vite.config.js writes WORKER_POLICY and WORKER_SCRIPT (the script's URLs)
// above this line. It touches nothing else, not even another worker of the same origin.
/* global WORKER_POLICY, WORKER_SCRIPT */

self.addEventListener('install', () => self.skipWaiting());
// Control the notebook that registered it at once, so that its first worker already has the policy.
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.destination !== 'worker' || new URL(request.url).origin !== self.location.origin || !WORKER_SCRIPT.test(request.url)) return;
  event.respondWith(
    fetch(request).then((response) => {
      const headers = new Headers(response.headers);
      headers.set('Content-Security-Policy', WORKER_POLICY);
      // The body is already decoded: its encoding and length headers no longer describe it.
      headers.delete('Content-Encoding');
      headers.delete('Content-Length');
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    }),
  );
});
