/* Tells the site's search which game the reader is in: the first folder of this page's path (a
 * module's pages live in its folder). The engine's search worker (Material's or Zensical's) receives
 * each query as a message; this adds the game to it, and the ranking the build put into the worker
 * (search_rank.js) puts that game's definitions first. The site's root goes with it: Zensical's page
 * code gives its worker every location as a whole address. Without this script, search ranks as if
 * read from the home page. */
(function () {
  "use strict";
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
