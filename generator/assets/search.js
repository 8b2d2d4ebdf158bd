/* Tells the site's search which game the reader is in: the first folder of this page's path (a
 * module's pages live in its folder). Material's search worker receives each query as a message;
 * this adds the game to it, and the ranking the build put into the worker (search_rank.js) puts
 * that game's definitions first. Without this script, search ranks as if read from the home page. */
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
    if (message && message.type === QUERY && typeof message.data === "string")
      args[0] = { type: QUERY, data: message.data, game: game };
    return post.apply(this, args);
  };
})();
