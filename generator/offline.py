"""The offline copy: a service worker that caches the whole built site on a reader's first visit.

Players look rules up at a table with no signal. `write_service_worker(site_dir)` runs after the
build, lists every built file and writes `sw.js` at the site root (so its scope is the whole site)
with that list and a version that is a hash of the files' contents: a new build is a new worker,
which caches the new files and deletes the old cache when it takes over. `assets/offline.js`
registers it, except on `mkdocs serve` (live reload must always reach the server).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from urllib.parse import quote

#: The worker's file name, at the site root.
WORKER = "sw.js"

#: Built files not worth a reader's storage: source maps, and lunr's stemmers for other languages
#: (fetched, and then cached, only when a site searches in another language).
SKIPPED_SUFFIXES = (".map",)
SKIPPED_FOLDERS = ("assets/javascripts/lunr/",)

_TEMPLATE = """\
// Written by the Cadence generator after each build: caches the site for reading offline.
const VERSION = %(version)s;
const CACHE = "cadence-offline-" + VERSION;
const FILES = %(files)s;

self.addEventListener("install", event => {
  event.waitUntil(
    caches.open(CACHE)
      .then(cache => cache.addAll(FILES.map(file => new Request(file, { cache: "reload" }))))
      .then(() => self.skipWaiting())
  );
});

self.addEventListener("activate", event => {
  event.waitUntil(
    caches.keys()
      .then(keys => Promise.all(keys
        .filter(key => key.startsWith("cadence-offline-") && key !== CACHE)
        .map(key => caches.delete(key))))
      .then(() => self.clients.claim())
  );
});

// Cache first for this site's files, the network for anything else (live reload, other hosts).
self.addEventListener("fetch", event => {
  const request = event.request;
  const url = new URL(request.url);
  const scope = new URL(self.registration.scope);
  if (request.method !== "GET" || url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname))
    return;
  if (url.pathname.includes("livereload"))
    return;
  const key = url.pathname.endsWith("/") ? new URL("index.html", url).href : url.href;
  event.respondWith(
    caches.open(CACHE).then(cache =>
      cache.match(key, { ignoreSearch: true }).then(hit => hit || fetch(request).then(response => {
        if (response.ok && response.type === "basic")
          cache.put(key, response.clone());
        return response;
      })))
  );
});
"""


def site_files(site_dir: Path) -> list[str]:
    """Every built file a reader needs offline, as paths relative to the site root, sorted."""
    files = []
    for path in sorted(site_dir.rglob("*")):
        rel = path.relative_to(site_dir).as_posix()
        if not path.is_file() or rel == WORKER or rel.endswith(SKIPPED_SUFFIXES) or rel.startswith(SKIPPED_FOLDERS):
            continue
        files.append(rel)
    return files


def site_version(site_dir: Path, files: list[str]) -> str:
    """A hash of the files' names and contents: it changes exactly when the built site does."""
    digest = hashlib.sha256()
    for rel in files:
        digest.update(rel.encode("utf-8") + b"\0")
        digest.update(hashlib.sha256((site_dir / rel).read_bytes()).digest())
    return digest.hexdigest()[:16]


def write_service_worker(site_dir: Path) -> str:
    """Write `sw.js` at the site root for the site as built; returns its version."""
    files = site_files(site_dir)
    version = site_version(site_dir, files)
    urls = [quote(rel) for rel in files]
    text = _TEMPLATE % {"version": json.dumps(version), "files": json.dumps(urls, ensure_ascii=False, indent=0)}
    (site_dir / WORKER).write_text(text, encoding="utf-8")
    return version
