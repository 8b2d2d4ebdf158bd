/* Tells the site's search which game the reader is in: the first folder of this page's path (a
 * module's pages live in its folder). The engine's search worker (Material's or Zensical's) receives
 * each query as a message; this adds the game to it, and the ranking the build put into the worker
 * (search_rank.js) puts that game's definitions first. The site's root goes with it: Zensical's page
 * code gives its worker every location as a whole address. Without this script, search ranks as if
 * read from the home page. */
(function () {
  "use strict";
  /* Zensical's search dialog is in a shadow root under a host of its own, which no stylesheet of the
   * site reaches. Its colours come from custom properties the host inherits: naming the host lets
   * rules.css give the words found a colour that reads. Each result's breadcrumb is drawn at 45% of the
   * text colour (3.4:1 on white): a style put into the shadow root draws it at 62% (6.2:1; 7.4:1 on the
   * dark scheme). The host is the page's one child of the body with an open shadow root, made before
   * the page has loaded (the dialog in it later). */
  var DIALOG_STYLE = '[id$="-path"] { color: rgb(var(--color-foreground) / 0.62); }';
  function nameDialogHost() {
    Array.prototype.forEach.call(document.body.children, function (child) {
      if (!child.shadowRoot) return;
      child.classList.add("rules-search-dialog");
      var style = document.createElement("style");
      style.textContent = DIALOG_STYLE;
      child.shadowRoot.appendChild(style);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", nameDialogHost);
  else nameDialogHost();
  var element = document.getElementById("__config");
  if (!window.Worker || !element) return;
  var base = String(JSON.parse(element.textContent).base || ".");
  var root = new URL(base.replace(/\/?$/, "/"), location.href).href;
  var path = location.href.indexOf(root) === 0 ? location.href.slice(root.length) : "";
  var game = path.indexOf("/") > 0 ? path.split("/")[0] : "";
  var QUERY = 2;
  var post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message) {
    var args = Array.prototype.slice.call(arguments);
    if (message && message.type === QUERY && message.data)  // Material's query is a string, Zensical's an object
      args[0] = { type: QUERY, data: message.data, game: game, root: root };
    return post.apply(this, args);
  };
})();
