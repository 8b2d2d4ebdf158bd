/* Registers the site's service worker (sw.js at the site root, written after each build), so that
 * after a first visit every page and the search work with no network. Not on `mkdocs serve`: the
 * dev server injects live reload, which must always reach the server, so there any worker an
 * earlier visit left is removed instead. */
(function () {
  if (!("serviceWorker" in navigator)) return;
  var config = document.getElementById("__config");
  var base = config ? JSON.parse(config.textContent).base : ".";
  var root = new URL(base.replace(/\/?$/, "/"), location.href);
  window.addEventListener("load", function () {
    if (typeof window.livereload === "function" || document.querySelector("script[src*='livereload']")) {
      navigator.serviceWorker.getRegistrations().then(function (registrations) {
        registrations.forEach(function (registration) { registration.unregister(); });
      });
      return;
    }
    navigator.serviceWorker.register(new URL("sw.js", root).href, { scope: root.href }).catch(function () {});
  });
})();
