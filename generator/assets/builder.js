/* The army builder: picks units from a module's published JSON (`<module>/data.json`) and checks the
 * roster live. The evaluator below mirrors generator/roster.py rule for rule (normalise, evaluate,
 * messages from the exported templates); tests/browser/test_builder.py runs both on thousands of
 * rosters and requires the same totals and problems. Data strings never go through innerHTML: every
 * node is made with createElement and filled with textContent.
 */
(function () {
  "use strict";

  var ROSTER_VERSION = 1;

  // --- the evaluator (mirror of generator/roster.py) -------------------------------------------

  function norm(name) {
    return String(name).trim().replace(/\s+/g, " ").toLowerCase();
  }

  function isMap(v) {
    return v !== null && typeof v === "object" && !Array.isArray(v);
  }

  // Python's truthiness, for `raw.get(key) or []`.
  function falsy(v) {
    if (v === null || v === undefined || v === false || v === 0 || v === "") return true;
    if (Array.isArray(v)) return v.length === 0;
    if (isMap(v)) return Object.keys(v).length === 0;
    return false;
  }

  function has(obj, key) {
    return Object.prototype.hasOwnProperty.call(obj, key);
  }

  function isInt(v) {
    return typeof v === "number" && Number.isInteger(v);
  }

  /** `text` with each `{name}` given in `values` put in, as it is; any other shown as written (model.fill). */
  function fill(text, values) {
    return text.replace(/\{(\w+)\}/g, function (whole, key) { return has(values, key) ? String(values[key]) : whole; });
  }

  function Verdict(messages, words) {
    this.total = 0;
    this.unit_costs = [];
    this.problems = [];
    this.messages = messages;
    this.words = words || {};
  }
  // An `expected` value is a key of the words ("names"), else said as it is; '{army}' is the module's word for
  // what its rosters build; a `{name}` given no value is shown as written (roster.Verdict.add).
  Verdict.prototype.add = function (severity, code, path, values, hint) {
    if (has(values, "expected") && has(this.words, String(values.expected))) {
      values = Object.assign({}, values, { expected: this.words[String(values.expected)] });
    }
    var message = fill(this.messages[code], Object.assign(has(this.words, "army") ? { army: this.words.army } : {}, values));
    var problem = { severity: severity, code: code, message: message, path: path };
    if (hint) problem.hint = hint; // only where there is one, as roster.Verdict.as_json
    this.problems.push(problem);
  };

  /** A name the data does not have: an error, with the nearest name it has as the hint (roster.Verdict.unknown). */
  Verdict.prototype.unknown = function (path, what, name, owner, known) {
    var near = nearest(name, known);
    var hint = near === null ? "" : fill(has(this.words, "did_you_mean") ? this.words.did_you_mean : "did you mean '{name}'?", { name: near });
    this.add("error", "roster-dropped", path, { what: what, name: name, owner: owner }, hint);
  };

  /** How many letters to add, remove or change to make `a` into `b` (roster._distance), by code point. */
  function distance(a, b) {
    a = Array.from(a);
    b = Array.from(b);
    var row = [];
    for (var j = 0; j <= b.length; j++) row.push(j);
    for (var i = 1; i <= a.length; i++) {
      var last = row[0];
      row[0] = i;
      for (j = 1; j <= b.length; j++) {
        var next = Math.min(row[j] + 1, row[j - 1] + 1, last + (a[i - 1] === b[j - 1] ? 0 : 1));
        last = row[j];
        row[j] = next;
      }
    }
    return row[b.length];
  }

  /** The known name nearest to a misspelt one: at most a third of its letters changed (at least two), the first
   * on a tie (roster.nearest). */
  function nearest(name, known) {
    var key = norm(name);
    var size = Array.from(key).length;
    var best = null, most = Math.max(2, Math.floor(size / 3));
    known.forEach(function (candidate) {
      var other = norm(candidate);
      if (Math.abs(Array.from(other).length - size) > most) return;
      var d = distance(key, other);
      if (d <= most) {
        best = candidate;
        most = d - 1;
      }
    });
    return best;
  }

  function normalise(raw, verdict) {
    function text(value, path, what) {
      if (typeof value === "string" && value.trim()) return value;
      verdict.add("error", "roster-format", path, { what: what, expected: "name" });
      return null;
    }
    function names(value, path) {
      if (value === null || value === undefined) return [];
      if (!Array.isArray(value)) {
        verdict.add("error", "roster-format", path, { what: path, expected: "names" });
        return [];
      }
      var out = [];
      value.forEach(function (v, k) {
        if (text(v, path + "[" + k + "]", path + "[" + k + "]") !== null) out.push(String(v));
      });
      return out;
    }
    var out = { module: null, list: null, points: null, units: [] };
    if (!isMap(raw)) {
      verdict.add("error", "roster-format", "", { what: has(verdict.words || {}, "roster") ? verdict.words.roster : "roster", expected: "mapping" });
      return out;
    }
    var version = has(raw, "format_version") ? raw.format_version : ROSTER_VERSION;
    if (version !== ROSTER_VERSION) {
      verdict.add("error", "roster-format", "format_version", { what: "format_version", expected: String(ROSTER_VERSION) });
    }
    out.module = text(raw.module, "module", "module");
    out.list = text(raw.list, "list", "list");
    var points = has(raw, "points") ? raw.points : null;
    if (points !== null && points !== undefined) {
      if (isInt(points) && points >= 0) out.points = points;
      else verdict.add("error", "roster-format", "points", { what: "points", expected: "number" });
    }
    var units = falsy(raw.units) ? [] : raw.units;
    if (!Array.isArray(units)) {
      verdict.add("error", "roster-format", "units", { what: "units", expected: "list" });
      units = [];
    }
    units.forEach(function (unit, i) {
      var path = "units[" + i + "]";
      if (!isMap(unit)) {
        verdict.add("error", "roster-format", path, { what: path, expected: "mapping" });
        return;
      }
      var name = text(unit.unit, path + ".unit", path + ".unit");
      var groups = falsy(unit.models) ? [] : unit.models;
      if (!Array.isArray(groups)) {
        verdict.add("error", "roster-format", path + ".models", { what: path + ".models", expected: "list" });
        groups = [];
      }
      var models = [];
      groups.forEach(function (group, j) {
        var gpath = path + ".models[" + j + "]";
        if (!isMap(group)) {
          verdict.add("error", "roster-format", gpath, { what: gpath, expected: "mapping" });
          return;
        }
        var model = text(group.model, gpath + ".model", gpath + ".model");
        var count = has(group, "count") ? group.count : 1;
        if (!isInt(count) || count < 1) {
          verdict.add("error", "roster-format", gpath + ".count", { what: gpath + ".count", expected: "count" });
          count = 1;
        }
        var weapons = names(group.weapons, gpath + ".weapons");
        var upgrades = names(group.upgrades, gpath + ".upgrades");
        models.push({ model: model, count: count, weapons: weapons, upgrades: upgrades });
      });
      var heldBack = has(unit, "reinforcements") ? unit.reinforcements : false;
      if (typeof heldBack !== "boolean") {
        verdict.add("error", "roster-format", path + ".reinforcements", { what: path + ".reinforcements", expected: "flag" });
        heldBack = false;
      }
      out.units.push({ unit: name, models: models, reinforcements: heldBack });
    });
    return out;
  }

  /** Whether an option for some models (their names; none, or null: every model) is offered to `model`, as
   * roster._offered_upgrades reads an upgrade's. */
  function offeredTo(models, model) {
    return !models || models.length === 0 || (!!model && models.some(function (m) { return norm(m) === norm(model.name); }));
  }

  function find(items, name) {
    var key = norm(name);
    for (var i = 0; i < items.length; i++) {
      if (norm(items[i].name) === key || items[i].id === name) return items[i];
    }
    return null;
  }

  function findId(ids, table, name) {
    var key = norm(name);
    for (var i = 0; i < ids.length; i++) {
      if (norm(table[ids[i]].name) === key) return ids[i];
    }
    return null;
  }

  function sum(list, f) {
    var s = 0;
    for (var i = 0; i < list.length; i++) s += f(list[i]);
    return s;
  }

  // points.build_model: base, upgrades in order, weapons, the module's cost rules.
  function buildModel(model, upgrades, weapons, rules) {
    var count = upgrades.length + (rules && rules.weapons_count_as_upgrades ? weapons.length : 0);
    var points = model.points || 0;
    upgrades.forEach(function (u) {
      points += u.cost_per_other_upgrade ? u.cost * Math.max(count - 1, 0) : u.cost;
    });
    weapons.forEach(function (w) {
      points += w.points || 0;
    });
    if (rules) {
      var extra = 0;
      rules.surcharges.forEach(function (s) {
        if (count >= s.min_upgrades) extra = Math.max(extra, s.points);
      });
      points += extra;
    }
    return points;
  }

  // --- reading a model's weapons (roster.read_weapons) ---

  var MOST_READINGS = 512;

  function intersects(a, b) {
    return a.some(function (x) { return b.indexOf(x) >= 0; });
  }

  /** Give up what a swap replaces; false when the model lacks a weapon to give up (roster._give_up). */
  function giveUp(swap, carried, options, usage) {
    var found = swap.gives_up.map(function (group) {
      for (var n = 0; n < group.length; n++) if (carried.indexOf(group[n]) >= 0) return group[n];
      return null;
    });
    if (found.some(function (k) { return k === null; })) return false;
    found.forEach(function (k) { carried.splice(carried.indexOf(k), 1); });
    var places = [];
    options.forEach(function (o, i) { if (intersects(o.weapons, swap.in_place_of)) places.push(i); });
    if (places.length) {
      var room = places.filter(function (i) { return options[i].max === null || usage[i] < options[i].max; });
      usage[room.length ? room[0] : places[0]] += 1;
    }
    return true;
  }

  /** One way of reading a model's weapons: each option's count, and that each swap has what it gives up. */
  function reading(weapons, fixed, way) {
    var options = weapons.options;
    var usage = options.map(function () { return 0; });
    var used = [];
    way.forEach(function (w) {
      if (w.kind === "o") {
        usage[w.k] += 1;
        if (used.indexOf(w.k) < 0) used.push(w.k);
      }
    });
    var carried = fixed.slice();
    var problems = [];
    var made = [];
    way.forEach(function (w) {
      if (w.kind !== "s") return;
      var swap = weapons.swaps[w.k];
      var values = { weapon: w.weapon, replaced: swap.label }; // an id: the caller names it
      if (made.indexOf(w.k) >= 0) problems.push(["roster-swap-once", values]);
      else if (!giveUp(swap, carried, options, usage)) problems.push(["roster-swap-gives-up", values]);
      made.push(w.k);
    });
    options.forEach(function (o, i) {
      if (o.max !== null && usage[i] > o.max) problems.push(["roster-option-max", { count: usage[i], option: o.label, max: o.max }]);
      if (usage[i] < o.min && o.models !== "one") problems.push(["roster-option-min", { count: usage[i], option: o.label, min: o.min }]);
    });
    var given = fixed.slice();
    carried.forEach(function (k) { given.splice(given.indexOf(k), 1); });
    return { problems: problems, swaps: made, given_up: given, options: used, slots: sum(usage, function (n) { return n; }) };
  }

  /** The reading that breaks the fewest rules, then makes the fewest swaps, tried in roster.py's order. */
  function readWeapons(weapons, fixed, chosen) {
    var picked = [];
    chosen.forEach(function (w) {
      var sources = [];
      weapons.options.forEach(function (o, i) { if (o.weapons.indexOf(w) >= 0) sources.push({ weapon: w, kind: "o", k: i }); });
      weapons.swaps.forEach(function (s, j) { if (s.with.indexOf(w) >= 0) sources.push({ weapon: w, kind: "s", k: j }); });
      if (sources.length) picked.push(sources);
    });
    if (!picked.length) return reading(weapons, fixed, []);
    var ways = 1;
    picked.forEach(function (c) { ways *= c.length; });
    if (ways > MOST_READINGS) return reading(weapons, fixed, picked.map(function (c) { return c[0]; }));
    var at = picked.map(function () { return 0; });
    var best = null;
    for (;;) {
      var r = reading(weapons, fixed, picked.map(function (c, n) { return c[at[n]]; }));
      if (best === null || r.problems.length < best.problems.length || (r.problems.length === best.problems.length && r.swaps.length < best.swaps.length)) best = r;
      var n = at.length - 1;
      while (n >= 0 && at[n] === picked[n].length - 1) { at[n] = 0; n--; }
      if (n < 0) return best;
      at[n] += 1;
    }
  }

  function most(models) {
    if (models === "one") return 1;
    return typeof models === "number" ? models : null;
  }

  /** The weapons a unit's models may choose: its options' and its swaps' (roster._offered_weapons). */
  function offeredWeapons(weapons) {
    var allowed = [];
    weapons.options.forEach(function (o) { allowed = allowed.concat(o.weapons); });
    weapons.swaps.forEach(function (s) { allowed = allowed.concat(s.with); });
    return allowed;
  }

  function names(table) {
    return Object.keys(table).map(function (k) { return table[k].name; });
  }

  /** The ids of the weapons (or upgrades) a model line chooses (roster._chosen): one the model has anyway may be
   * listed, once for each time it has it, and is not chosen (never charged twice); one not offered is an error
   * but costed; one the list lacks is an error with the nearest name as the hint, and left out. */
  function chosenIds(line, what, offered, compulsory, listed) {
    var table = line.army[what + "s"];
    var spare = compulsory.slice();
    var out = [];
    listed.forEach(function (name, k) {
      var path = line.path + "." + what + "s[" + k + "]";
      var key = findId(offered, table, name);
      var anyway = key === null ? findId(spare, table, name) : null;
      if (anyway !== null) {
        spare.splice(spare.indexOf(anyway), 1);
        return;
      }
      if (key === null) {
        key = findId(Object.keys(table), table, name);
        if (key === null) return line.verdict.unknown(path, what, name, line.army.name, names(table));
        var values = { model: line.model.name, unit: line.unit.name };
        values[what] = table[key].name;
        line.verdict.add("error", "roster-" + what, path, values);
      }
      out.push(key);
    });
    return out;
  }

  /** One line of models (roster._check_model_line): its weapons and upgrades, its cost, the limits on each model. */
  function modelLine(unitCtx, group, path, tally) {
    var unit = unitCtx.unit, army = unitCtx.army, verdict = unitCtx.verdict;
    var index = -1;
    for (var n = 0; n < unit.models.length && index < 0; n++) if (norm(unit.models[n].name) === norm(group.model)) index = n;
    if (index < 0) return verdict.unknown(path + ".model", "model", group.model, unit.name, unit.models.map(function (m) { return m.name; }));
    var model = unit.models[index];
    if (model.points === null && unitCtx.data.module.currency !== null) { // a cost the source does not print
      verdict.add("warning", "roster-unpriced", path + ".model", { model: model.name, unit: unit.name });
    }
    var line = Object.assign({ model: model, path: path }, unitCtx);
    var weapons = unit.weapons;
    var fixed = has(weapons.by_model, model.name) ? weapons.by_model[model.name] : weapons.fixed;
    var chosenWeapons = chosenIds(line, "weapon", offeredWeapons(weapons), fixed, group.weapons);
    var offered = unit.upgrades.options.filter(function (o) { return offeredTo(o.models, model); }).map(function (o) { return o.upgrade; });
    var chosenUpgrades = chosenIds(line, "upgrade", offered, unit.upgrades.fixed, group.upgrades);
    var read = readWeapons(weapons, fixed, chosenWeapons);
    read.problems.forEach(function (p) {
      var values = Object.assign({ model: model.name, unit: unit.name }, p[1]);
      if (has(values, "weapon")) values.weapon = army.weapons[values.weapon].name;
      verdict.add("error", p[0], path, values);
    });
    var carried = fixed.slice();
    read.given_up.forEach(function (k) { carried.splice(carried.indexOf(k), 1); });
    var built = buildModel(
      model,
      unit.upgrades.fixed.concat(chosenUpgrades).map(function (u) { return army.upgrades[u]; }),
      carried.concat(chosenWeapons).map(function (w) { return army.weapons[w]; }),
      unitCtx.data.module.army_building ? unitCtx.data.module.army_building.cost : null
    );
    addLine(tally, group.count, model, built, read, carried.concat(chosenWeapons), chosenWeapons, chosenUpgrades);
    checkModel(line, built, read.slots, chosenUpgrades);
  }

  /** Add a line of `count` models to the unit's tally (roster._add_line). */
  function addLine(tally, count, model, built, read, arms, chosenWeapons, chosenUpgrades) {
    tally.cost += built * count;
    tally.models += count;
    tally.byModel[model.name] = (tally.byModel[model.name] || 0) + count;
    if (!read.swaps.length) tally.loadouts.push(chosenWeapons.slice().sort().join("\u0000"));
    read.swaps.filter(function (j, n) { return read.swaps.indexOf(j) === n; }).forEach(function (j) { tally.swapped[j] = (tally.swapped[j] || 0) + count; });
    read.options.forEach(function (i) { tally.optioned[i] = (tally.optioned[i] || 0) + count; });
    chosenUpgrades.forEach(function (u) { tally.upgrades[u] = (tally.upgrades[u] || 0) + count; });
    arms.forEach(function (w) { tally.weapons[w] = (tally.weapons[w] || 0) + count; });
  }

  /** The limits on each model of a line: spending cap, weapon and upgrade counts, upgrades per model. */
  function checkModel(line, built, slots, chosenUpgrades) {
    var unit = line.unit, model = line.model, verdict = line.verdict, path = line.path;
    var who = { model: model.name, unit: unit.name };
    var spent = built - (model.points || 0);
    var cap = unit.spending_cap === null && unit.spending_cap_own_cost ? model.points || 0 : unit.spending_cap;
    if (cap !== null && spent > cap) verdict.add("error", "roster-spending-cap", path, Object.assign({ spent: spent, currency: line.currency, cap: cap }, who));
    var t = unit.weapons.total;
    if (t && t.min !== null && slots < t.min) verdict.add("error", "roster-weapon-count-min", path, Object.assign({ count: slots, min: t.min }, who));
    if (t && t.max !== null && slots > t.max) verdict.add("error", "roster-weapon-count-max", path, Object.assign({ count: slots, max: t.max }, who));
    var upgrades = unit.upgrades, nu = chosenUpgrades.length;
    if (upgrades.min !== null && nu < upgrades.min) verdict.add("error", "roster-upgrade-count-min", path, Object.assign({ count: nu, min: upgrades.min }, who));
    if (upgrades.max !== null && nu > upgrades.max) verdict.add("error", "roster-upgrade-count-max", path, Object.assign({ count: nu, max: upgrades.max }, who));
    chosenUpgrades.filter(function (u, n) { return chosenUpgrades.indexOf(u) === n; }).forEach(function (key) {
      var u = line.army.upgrades[key];
      var times = chosenUpgrades.filter(function (x) { return x === key; }).length;
      if (u.max_per_model !== null && times > u.max_per_model) {
        verdict.add("error", "roster-upgrade-per-model", path, Object.assign({ upgrade: u.name, count: times, limit: u.limit || u.max_per_model }, who));
      }
    });
  }

  /** Cost a unit's model lines and check each, then the unit as a whole (roster._check_unit). */
  function checkUnit(data, army, unit, groups, path, currency, verdict) {
    var unitCtx = { data: data, army: army, unit: unit, currency: currency, verdict: verdict };
    var tally = { cost: 0, models: 0, byModel: {}, loadouts: [], swapped: {}, optioned: {}, upgrades: {}, weapons: {} };
    groups.forEach(function (group, j) {
      if (group.model !== null) modelLine(unitCtx, group, path + ".models[" + j + "]", tally);
    });
    checkUnitSize(unit, tally, path, verdict);
    checkChoices(unit, tally, path, verdict);
    return { cost: tally.cost, upgrades: tally.upgrades, weapons: tally.weapons };
  }

  /** The unit's model count, its limits on one model, and the same weapons where it asks for them. */
  function checkUnitSize(unit, tally, path, verdict) {
    var size = unit.composition.models || { min: null, max: null };
    var least = size.min !== null ? size.min : 1;
    if (tally.models < least) verdict.add("error", "roster-models-min", path, { unit: unit.name, count: tally.models, min: least });
    if (size.max !== null && tally.models > size.max) verdict.add("error", "roster-models-max", path, { unit: unit.name, count: tally.models, max: size.max });
    unit.composition.limits.forEach(function (limit) {
      var have = 0;
      Object.keys(tally.byModel).forEach(function (name) { if (norm(name) === norm(limit.model)) have += tally.byModel[name]; });
      if (have > limit.max) verdict.add("error", "roster-model-limit", path, { unit: unit.name, count: have, model: limit.model, max: limit.max });
      if (have < limit.min) verdict.add("error", "roster-model-limit-min", path, { unit: unit.name, count: have, model: limit.model, min: limit.min });
    });
    if (unit.weapons.same && tally.loadouts.some(function (l) { return l !== tally.loadouts[0]; })) {
      verdict.add("error", "roster-same-weapons", path, { unit: unit.name });
    }
  }

  /** How many models made each swap and took from each option meant for some models (roster._check_swappers). */
  function checkChoices(unit, tally, path, verdict) {
    unit.weapons.swaps.forEach(function (swap, j) {
      var n = tally.swapped[j] || 0;
      var m = most(swap.models);
      if (m !== null && n > m) verdict.add("error", "roster-swap-models", path, { unit: unit.name, count: n, replaced: swap.label, max: m });
      if (swap.models === "all" && n > 0 && n < tally.models) verdict.add("error", "roster-swap-all", path, { unit: unit.name, count: n, models: tally.models, replaced: swap.label });
    });
    unit.weapons.options.forEach(function (option, i) {
      var n = tally.optioned[i] || 0;
      var m = most(option.models);
      if (m !== null && n > m) verdict.add("error", "roster-option-models", path, { unit: unit.name, count: n, option: option.label, max: m });
    });
  }

  function countsAs(building, id) {
    var c = (building.categories || []).filter(function (x) { return x.id === id; })[0];
    return c ? c.counts_as : null;
  }

  function checkArmy(army, building, roster, kept, currency, verdict, reserve) {
    var total = verdict.total;
    var spent = total - reserve;
    var counts = {};
    kept.forEach(function (k) { counts[k.unit.id] = (counts[k.unit.id] || 0) + 1; });
    army.units.forEach(function (unit) {
      var c = unit.composition;
      var count = (counts[unit.id] || 0) + sum(c.shared_with, function (o) { return counts[o] || 0; });
      var pa = c.per_army;
      if (pa && pa.min !== null && count < pa.min) verdict.add("error", "roster-per-army-min", "units", { unit: unit.name, min: pa.min, count: count });
      if (pa && pa.max !== null && count > pa.max) verdict.add("error", "roster-per-army-max", "units", { unit: unit.name, max: pa.max, count: count });
      var pu = c.per_unit;
      if (pu && count) {
        var other = army.units.filter(function (u) { return u.id === pu.unit; })[0];
        var allowed = pu.max * (counts[pu.unit] || 0);
        if (count > allowed) verdict.add("error", "roster-per-unit", "units", { unit: unit.name, count: count, other: other ? other.name : pu.unit, allowed: allowed });
      }
      if (c.taken_in && (counts[unit.id] || 0) % c.taken_in) {
        verdict.add("error", "roster-taken-in", "units", { unit: unit.name, count: counts[unit.id], size: c.taken_in });
      }
    });
    if (building.max_units !== undefined && building.max_units !== null && kept.length > building.max_units) {
      verdict.add("error", "roster-max-units", "units", { count: kept.length, max: building.max_units });
    }
    if (reserve) {
      var extra = building.reinforcements;
      if (reserve > extra.points) verdict.add("error", "roster-reinforcements", "units", { name: extra.name, total: reserve, currency: currency, limit: extra.points });
      if (roster.points !== null && spent > roster.points) {
        verdict.add("error", "roster-total-without-reinforcements", "points", { name: extra.name, total: spent, currency: currency, limit: roster.points });
      }
    } else if (roster.points !== null && spent > roster.points) {
      verdict.add("error", "roster-total", "points", { total: spent, currency: currency, limit: roster.points });
    }
    if (building.budget !== undefined && building.budget !== null && spent > building.budget) {
      verdict.add("error", "roster-budget", "units", { total: spent, currency: currency, limit: building.budget });
    }
    var each = building.per_item_budget;
    if (each !== undefined && each !== null) {
      var over = sum(kept, function (k) { return Math.max(0, k.cost - each); });
      var pool = (building.pooled_budget_per_item || 0) * kept.length;
      if (over > pool) verdict.add("error", "roster-item-budget", "units", { over: over, currency: currency, each: each, pool: pool });
    }
    var game = roster.points !== null ? roster.points : (building.budget === undefined ? null : building.budget);
    // The game sizes of exactly these points: their own unit counts and special rules hold (roster._game_sizes).
    var sizes = (building.game_sizes || []).filter(function (g) { return g.limit === roster.points; });
    var sized = sizes.filter(function (g) { return g.category_units !== null; });
    (building.categories || []).forEach(function (category) {
      var members = kept.filter(function (k) { return k.unit.category === category.id || countsAs(building, k.unit.category) === category.id; });
      var points = sum(members, function (k) { return k.cost; });
      var name = category.name;
      var counts = sized.length ? (has(sized[0].category_units, category.id) ? sized[0].category_units[category.id] : null) : category.units;
      if (counts) {
        var lo = counts.min, hi = counts.max;
        if (lo !== null && members.length < lo) verdict.add("error", "roster-category-min", "units", { count: members.length, category: name, min: lo });
        if (hi !== null && members.length > hi) verdict.add("error", "roster-category-max", "units", { count: members.length, category: name, max: hi });
      }
      if (total > 0) {
        var percent = Math.floor((points * 100) / total);
        if (category.min_share !== null && points * 100 < category.min_share * total) {
          verdict.add("error", "roster-share-min", "units", { category: name, points: points, currency: currency, percent: percent, share: category.min_share });
        }
        if (category.max_share !== null && points * 100 > category.max_share * total) {
          verdict.add("error", "roster-share-max", "units", { category: name, points: points, currency: currency, percent: percent, share: category.max_share });
        }
      }
      var least = category.min_game_points;
      if (least !== null && members.length && game !== null && game < least) {
        verdict.add("error", "roster-category-size", "units", { category: name, min: least, currency: currency });
      }
    });
    sizes.forEach(function (size) {
      checkExcludedRules(size, kept, verdict);
      size.rule_ratios.forEach(function (ratio) { checkRuleRatio(ratio, kept, verdict); });
    });
  }

  /** The special rules (by id) a unit has: those of any of its models (roster._rules_of). */
  function rulesOf(unit) {
    var out = [];
    unit.models.forEach(function (m) {
      m.rules.forEach(function (use) { if (use.rule !== null && out.indexOf(use.rule) < 0) out.push(use.rule); });
    });
    return out;
  }

  /** No unit with a rule the game size keeps out; each unit is told once (roster._check_excluded_rules). */
  function checkExcludedRules(size, kept, verdict) {
    kept.forEach(function (k) {
      var rules = rulesOf(k.unit);
      var named = size.excluded_rules.filter(function (n) { return rules.indexOf(n.rule) >= 0; })[0];
      if (named) verdict.add("error", "roster-excluded-rule", "units[" + k.index + "].unit", { unit: k.unit.name, rule: named.text, size: size.name });
    });
  }

  /** So many units with a rule for every unit with none of some others (roster._check_rule_ratio). */
  function checkRuleRatio(ratio, kept, verdict) {
    var rule = ratio.rule.rule;
    var without = ratio.without.map(function (w) { return w.rule; }).concat([rule]);
    var limited = kept.filter(function (k) { return rule !== null && rulesOf(k.unit).indexOf(rule) >= 0; }).length;
    var counted = kept.filter(function (k) { return !intersects(rulesOf(k.unit), without); }).length;
    var allowed = ratio.max * counted;
    if (limited > allowed) {
      var words = ratio.without.map(function (w) { return w.text; }).join(" / ");
      verdict.add("error", "roster-rule-ratio", "units", { count: limited, rule: ratio.rule.text, max: ratio.max, without: words, allowed: allowed });
    }
  }

  function evaluate(data, roster, verdict) {
    var module = data.module;
    var building = module.army_building || {};
    var currency = module.currency ? module.currency.name : module.terms.points_unit;
    if (roster.list === null) return verdict;
    var army = find(data.lists, roster.list);
    if (army === null) {
      verdict.add("error", "roster-unknown-list", "list", { name: roster.list, module: module.title });
      return verdict;
    }
    var kept = [];
    var taken = {};
    var carried = {};
    var reserve = 0;
    roster.units.forEach(function (entry, i) {
      if (entry.unit === null) return;
      var unit = find(army.units, entry.unit);
      if (unit === null) {
        verdict.unknown("units[" + i + "].unit", "unit", entry.unit, army.name, army.units.map(function (u) { return u.name; }));
        return;
      }
      var tally = checkUnit(data, army, unit, entry.models, "units[" + i + "]", currency, verdict);
      kept.push({ index: i, unit: unit, cost: tally.cost });
      verdict.unit_costs.push(tally.cost);
      Object.keys(tally.upgrades).forEach(function (k) { taken[k] = (taken[k] || 0) + tally.upgrades[k]; });
      Object.keys(tally.weapons).forEach(function (k) { carried[k] = (carried[k] || 0) + tally.weapons[k]; });
      if (entry.reinforcements) {
        if (building.reinforcements === undefined || building.reinforcements === null) {
          verdict.add("error", "roster-no-reinforcements", "units[" + i + "].reinforcements", { unit: unit.name, module: module.title });
        } else {
          reserve += tally.cost;
        }
      }
    });
    verdict.total = sum(kept, function (k) { return k.cost; });
    verdict.reserve = reserve;
    if (!kept.length) verdict.add("error", "roster-empty", "units", {});
    checkPerArmy(army, taken, carried, verdict);
    checkArmy(army, building, roster, kept, currency, verdict, reserve);
    return verdict;
  }

  /** Upgrades and weapons limited per army (roster._check_upgrades_per_army, _check_weapons_per_army). */
  function checkPerArmy(army, taken, carried, verdict) {
    Object.keys(taken).forEach(function (key) {
      var u = army.upgrades[key];
      if (u.max_per_army !== null && taken[key] > u.max_per_army) {
        verdict.add("error", "roster-upgrade-per-army", "units", { upgrade: u.name, count: taken[key], limit: u.limit || u.max_per_army });
      }
    });
    // A weapon of a list that limits how often each of its weapons appears in the army (roster._check_weapons_per_army).
    Object.keys(carried).forEach(function (key) {
      var w = army.weapons[key];
      var most = w.max_per_army === undefined ? null : w.max_per_army;
      if (most !== null && carried[key] > most) {
        verdict.add("error", "roster-weapon-per-army", "units", { weapon: w.name, list: w.list, max: most, count: carried[key] });
      }
    });
  }

  /** Check a raw roster (as read from a file or a link) against one module's document. */
  function check(data, raw) {
    var verdict = new Verdict(data.messages, data.roster_words);
    var roster = normalise(raw, verdict);
    if (roster.module !== null && roster.module !== data.module.id) {
      verdict.add("error", "roster-unknown-module", "module", { name: roster.module, module: data.module.id });
    } else {
      evaluate(data, roster, verdict);
    }
    return { total: verdict.total, unit_costs: verdict.unit_costs, problems: verdict.problems, roster: roster, reserve: verdict.reserve || 0 };
  }

  // --- reading a roster file: bounded, and refused when a key is given twice (roster.check_roster_file) ---

  var TOKEN = /\s*(?:("(?:[^"\\]|\\.)*")|([{}\[\]:,])|[^\s{}\[\]:,"]+)/y;

  /** The roster path of a value inside an open mapping or list. */
  function inside(frame) {
    if (!frame) return "";
    if (!frame.map) return frame.path + "[" + frame.at + "]";
    return frame.path ? frame.path + "." + frame.key : frame.key;
  }

  /** The path of each key given a second time in one mapping, in the file's order, in JSON text that parses
   * (JSON.parse keeps the last value of such a key, Python's reader the first: the roster means neither). */
  function twice(text) {
    var stack = [];
    var out = [];
    var expectKey = false;
    var m;
    TOKEN.lastIndex = 0;
    while (TOKEN.lastIndex < text.length && (m = TOKEN.exec(text)) !== null && m[0].length) {
      var top = stack[stack.length - 1];
      var mark = m[2];
      if (m[1] !== undefined && expectKey) {
        top.key = JSON.parse(m[1]);
        if (top.keys.has(top.key)) out.push(inside(top));
        top.keys.add(top.key);
        expectKey = false;
      } else if (mark === "{" || mark === "[") {
        stack.push({ map: mark === "{", path: inside(top), keys: new Set(), key: "", at: 0 });
        expectKey = mark === "{";
      } else if (mark === "}" || mark === "]") {
        stack.pop();
      } else if (mark === ",") {
        if (top.map) expectKey = true;
        else top.at += 1;
      }
    }
    return out;
  }

  /** The UTF-8 size of a text, in bytes. */
  function byteSize(text) {
    return new TextEncoder().encode(text).length;
  }

  /** A roster file's text read as `cadence roster` reads it: refused unread (`raw` null) when larger than the
   * document's limits or with a key given twice; throws on text that is not JSON (the caller says so). */
  function read(data, text) {
    var verdict = new Verdict(data.messages, data.roster_words);
    var limits = data.limits;
    var size = byteSize(text);
    if (size > limits.bytes) {
      verdict.add("error", "roster-too-large", "", { size: size, max: limits.bytes });
      return { raw: null, problems: verdict.problems };
    }
    var raw = JSON.parse(text);
    twice(text).forEach(function (path) { verdict.add("error", "roster-duplicate-key", path, { what: path }); });
    if (!verdict.problems.length && isMap(raw) && Array.isArray(raw.units) && raw.units.length > limits.units) {
      verdict.add("error", "roster-too-many-units", "units", { count: raw.units.length, max: limits.units });
    }
    return { raw: verdict.problems.length ? null : raw, problems: verdict.problems };
  }

  // --- links: the roster in the URL hash --------------------------------------------------------

  function toBase64Url(text) {
    var bytes = new TextEncoder().encode(text);
    var bin = "";
    bytes.forEach(function (b) { bin += String.fromCharCode(b); });
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function fromBase64Url(text) {
    var bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  }

  /** A roster as a compact array (names kept, so a link to renamed data can say what it dropped). */
  function encode(roster) {
    var units = roster.units.map(function (u) {
      var models = u.models.map(function (g) { return [g.model, g.count, g.weapons, g.upgrades]; });
      return u.reinforcements ? [u.unit, models, 1] : [u.unit, models];
    });
    return toBase64Url(JSON.stringify([ROSTER_VERSION, roster.module, roster.list, roster.points, units]));
  }

  /** The raw roster a link holds; throws on anything malformed (the caller reports it). */
  function decode(text) {
    var a = JSON.parse(fromBase64Url(text));
    if (!Array.isArray(a) || a.length !== 5 || !Array.isArray(a[4])) throw new Error("not a roster");
    return {
      format_version: a[0],
      module: a[1],
      list: a[2],
      points: a[3],
      units: a[4].map(function (u) {
        if (!Array.isArray(u) || !Array.isArray(u[1])) throw new Error("not a unit");
        var unit = {
          unit: u[0],
          models: u[1].map(function (g) {
            if (!Array.isArray(g)) throw new Error("not a model");
            return { model: g[0], count: g[1], weapons: g[2], upgrades: g[3] };
          }),
        };
        if (u[2] === 1) unit.reinforcements = true;
        return unit;
      }),
    };
  }

  var api = { norm: norm, normalise: normalise, evaluate: evaluate, check: check, read: read, encode: encode, decode: decode, buildModel: buildModel };
  if (typeof window !== "undefined") window.CadenceRoster = api;
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  if (typeof document === "undefined") return;

  // --- the page ---------------------------------------------------------------------------------

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "class") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }

  function Builder(root, data) {
    this.root = root;
    this.data = data;
    this.ui = JSON.parse(root.getAttribute("data-ui") || "{}");
    this.notices = [];
    this.storageKey = "cadence-roster:" + data.module.id;
    this.roster = this.emptyRoster(data.lists[0]);
  }

  Builder.prototype.word = function (key) {
    return this.ui[key] || key;
  };

  Builder.prototype.emptyRoster = function (army) {
    var b = this.data.module.army_building || {};
    var sizes = b.game_sizes || [];
    var points = sizes.length ? sizes[0].limit : (b.budget === undefined ? null : b.budget);
    return { format_version: ROSTER_VERSION, module: this.data.module.id, list: army ? army.id : null, points: points, units: [] };
  };

  Builder.prototype.army = function () {
    return this.roster.list === null ? null : find(this.data.lists, this.roster.list);
  };

  /** Load a raw roster: keep what resolves, and say what was dropped. */
  Builder.prototype.load = function (raw) {
    var result = check(this.data, raw);
    var roster = result.roster;
    var dropped = result.problems.filter(function (p) { return p.code === "roster-dropped" || p.code === "roster-format" || p.code === "roster-unknown-list" || p.code === "roster-unknown-module"; });
    this.notices = dropped.map(said);
    if (result.problems.some(function (p) { return p.code === "roster-unknown-list" || p.code === "roster-unknown-module"; })) {
      this.roster = this.emptyRoster(this.data.lists[0]);
      return;
    }
    var army = find(this.data.lists, roster.list) || this.data.lists[0];
    var units = [];
    roster.units.forEach(function (entry) {
      var unit = entry.unit === null ? null : find(army.units, entry.unit);
      if (!unit) return;
      var models = [];
      entry.models.forEach(function (g) {
        var model = g.model === null ? null : find(unit.models, g.model);
        if (!model) return;
        var keepW = g.weapons.filter(function (w) { return findId(Object.keys(army.weapons), army.weapons, w) !== null; });
        var keepU = g.upgrades.filter(function (u) { return findId(Object.keys(army.upgrades), army.upgrades, u) !== null; });
        models.push({ model: model.name, count: g.count, weapons: keepW, upgrades: keepU });
      });
      units.push(entry.reinforcements ? { unit: unit.name, models: models, reinforcements: true } : { unit: unit.name, models: models });
    });
    this.roster = { format_version: ROSTER_VERSION, module: this.data.module.id, list: army.id, points: roster.points, units: units };
  };

  /** A problem as a notice says it: its message, and its hint after it. */
  function said(p) {
    return p.hint ? p.message + " (" + p.hint + ")" : p.message;
  }

  /** Nothing loaded from a link: the first list's empty roster, and the notice that says why (a checker's message). */
  Builder.prototype.refuse = function (code, values) {
    this.roster = this.emptyRoster(this.data.lists[0]);
    this.notices = [this.tell(code, values)];
    return false;
  };

  /** A roster problem's message with its values put in, as the checkers word it. */
  Builder.prototype.tell = function (code, values) {
    var verdict = new Verdict(this.data.messages, this.data.roster_words);
    verdict.add("error", code, "", values || {});
    return said(verdict.problems[0]);
  };

  /** Load a roster link (or what the page kept): one longer than the limits allow is refused before it is read. */
  Builder.prototype.open = function (code) {
    var limits = this.data.limits;
    if (code.length > Math.ceil(limits.bytes / 3) * 4) return this.refuse("roster-too-large", { size: Math.floor((code.length * 3) / 4), max: limits.bytes });
    var raw;
    try {
      raw = decode(code);
    } catch (e) {
      return this.refuse("roster-link");
    }
    if (raw.units.length > limits.units) return this.refuse("roster-too-many-units", { count: raw.units.length, max: limits.units });
    this.load(raw);
    return true;
  };

  /** Load a roster file: one larger than the limits is refused unread, one with a key given twice is refused;
   * a file refused leaves the roster on the page as it was, and says why. */
  Builder.prototype.openFile = function (file) {
    var self = this;
    var limits = this.data.limits;
    if (file.size > limits.bytes) {
      this.notices = [this.tell("roster-too-large", { size: file.size, max: limits.bytes })];
      this.render();
      return Promise.resolve();
    }
    return file.text().then(function (text) {
      var got = null;
      try {
        got = read(self.data, text);
      } catch (e) {
        self.notices = [self.tell("roster-link")];
      }
      if (got && got.raw === null) self.notices = got.problems.map(said);
      else if (got) self.load(got.raw);
      self.change();
    });
  };

  /** Keep the roster in the link and for the next visit; one longer than the limits is not kept (and what was
   * kept before is forgotten), so that nothing kept can make a later visit slow. */
  Builder.prototype.save = function () {
    var code = encode(this.roster);
    var small = code.length <= Math.ceil(this.data.limits.bytes / 3) * 4 && this.roster.units.length <= this.data.limits.units;
    try {
      history.replaceState(null, "", "#r=" + code);
    } catch (e) { /* a file:// page may refuse; the roster is still kept below */ }
    try {
      if (small) localStorage.setItem(this.storageKey, code);
      else localStorage.removeItem(this.storageKey);
    } catch (e) { /* private mode: nothing to keep */ }
  };

  Builder.prototype.start = function () {
    var hash = location.hash.replace(/^#/, "");
    var stored = null;
    try { stored = localStorage.getItem(this.storageKey); } catch (e) { stored = null; }
    var code = hash.indexOf("r=") === 0 ? hash.slice(2) : stored;
    var refused = code ? !this.open(code) : false;
    // A roster refused or failing to draw is not kept: the next visit starts from what is saved now.
    if (!this.render() || refused) this.save();
  };

  /** After an edit: drawn, then kept; a roster that failed to draw is never kept. */
  Builder.prototype.change = function () {
    if (this.render()) this.save();
  };

  /** Draw the page; true when it drew. When drawing fails, the last roster that drew is drawn again (else the
   * first list's empty roster), with a message that says so, and false is returned: the caller keeps nothing. */
  Builder.prototype.render = function () {
    try {
      this.draw();
      this.good = JSON.stringify(this.roster);
      return true;
    } catch (e) {
      this.roster = this.good ? JSON.parse(this.good) : this.emptyRoster(this.data.lists[0]);
      try {
        this.draw();
      } catch (again) {
        this.root.textContent = "";
      }
      this.root.insertBefore(el("p", { class: "rb-failed", id: "rb-failed", role: "alert", text: this.word("failed") }), this.root.firstChild);
      return false;
    }
  };

  Builder.prototype.draw = function () {
    var data = this.data;
    var army = this.army();
    var result = check(data, this.roster);
    var root = this.root;
    var focusId = document.activeElement && document.activeElement.id;
    root.textContent = "";
    root.appendChild(this.head(army));
    root.appendChild(this.status(result));
    if (army) root.appendChild(this.adder(army));
    var self = this;
    var units = el("div", { class: "rb-units" });
    this.roster.units.forEach(function (entry, i) {
      var unit = army ? find(army.units, entry.unit) : null;
      if (!unit) return;
      units.appendChild(self.unitCard(army, unit, entry, i, result.unit_costs[i], data.module.terms, data.module.currency));
    });
    root.appendChild(units);
    root.appendChild(this.actions());
    root.appendChild(this.printout(army, result, data.module.terms, data.module.currency));
    if (focusId) {
      var again = document.getElementById(focusId);
      if (again) again.focus();
    }
  };

  /** The list and game size choosers and the points field, each label kept with its control (on a phone a row
   * breaks between the pairs, never inside one). */
  Builder.prototype.head = function (army) {
    var self = this;
    var data = this.data;
    var building = data.module.army_building || {};
    var listSelect = el("select", { id: "rb-list" });
    data.lists.forEach(function (l) {
      var o = el("option", { value: l.id, text: l.name });
      if (army && l.id === army.id) o.selected = true;
      listSelect.appendChild(o);
    });
    listSelect.addEventListener("change", function () {
      self.roster = self.emptyRoster(find(data.lists, listSelect.value));
      self.notices = [];
      self.change();
    });
    var sizeSelect = el("select", { id: "rb-size" });
    (building.game_sizes || []).forEach(function (g) {
      if (g.limit === null) return;
      var o = el("option", { value: String(g.limit), text: g.name + " (" + g.points + ")" });
      if (g.limit === self.roster.points) o.selected = true;
      sizeSelect.appendChild(o);
    });
    sizeSelect.addEventListener("change", function () {
      self.roster.points = parseInt(sizeSelect.value, 10);
      self.change();
    });
    var pointsInput = el("input", { id: "rb-points", type: "number", min: "0", step: "1", inputmode: "numeric" });
    pointsInput.value = this.roster.points === null ? "" : String(this.roster.points);
    pointsInput.addEventListener("change", function () {
      var v = parseInt(pointsInput.value, 10);
      self.roster.points = isNaN(v) || v < 0 ? null : v;
      self.change();
    });
    return el("div", { class: "rb-head" }, [
      el("div", { class: "rb-pair" }, [el("label", { for: "rb-list", text: this.word("list") }), listSelect]),
      sizeSelect.options.length ? el("div", { class: "rb-pair" }, [el("label", { for: "rb-size", text: this.word("size") }), sizeSelect]) : null,
      el("div", { class: "rb-pair" }, [el("label", { for: "rb-points", text: this.limitWord(building, sizeSelect.options.length > 0, data.module.currency) }), pointsInput]),
    ]);
  };

  /** The total and every problem, announced as they change, and the notices of what a link or file lost. */
  Builder.prototype.status = function (result) {
    var currency = this.data.module.currency;
    var unit = currency ? " " + currency.name : "";
    var extra = (this.data.module.army_building || {}).reinforcements;
    var total = el("p", { class: "rb-total", id: "rb-total" });
    // Reinforcements are costed apart, within their own points: the total set against the game's points is the rest.
    total.textContent = this.word("total") + ": " + (result.total - result.reserve) + (this.roster.points !== null ? " / " + this.roster.points : "") + unit;
    var status = el("div", { class: "rb-status", role: "status", "aria-live": "polite" }, [total]);
    if (extra) status.appendChild(el("p", { class: "rb-total rb-reserve-total", id: "rb-reserve", text: extra.name + ": " + result.reserve + " / " + extra.points + unit }));
    var errors = result.problems.filter(function (p) { return p.code !== "roster-dropped"; });
    var list = el("ul", { class: "rb-problems", id: "rb-problems" });
    errors.forEach(function (p) {
      list.appendChild(el("li", { class: "rb-" + p.severity, "data-code": p.code, text: said(p) }));
    });
    status.setAttribute("data-verdict", errors.some(function (p) { return p.severity === "error"; }) ? "illegal" : "legal");
    status.appendChild(list);
    if (this.notices.length) {
      var notes = el("ul", { class: "rb-notices", id: "rb-notices" });
      this.notices.forEach(function (n) { notes.appendChild(el("li", { text: n })); });
      status.appendChild(notes);
    }
    return status;
  };

  /** The unit chooser and the button that adds one. */
  Builder.prototype.adder = function (army) {
    var self = this;
    var root = this.root;
    var unitSelect = el("select", { id: "rb-unit" });
    army.units.forEach(function (u) { unitSelect.appendChild(el("option", { value: u.id, text: u.name })); });
    var add = el("button", { type: "button", id: "rb-add", class: "md-button", text: this.word("add") });
    add.addEventListener("click", function () {
      var unit = find(army.units, unitSelect.value);
      self.roster.units.push({ unit: unit.name, models: firstModels(army, unit) });
      self.change();
      var cards = root.querySelectorAll(".rb-unit h3");
      if (cards.length) cards[cards.length - 1].focus();
    });
    return el("div", { class: "rb-adder" }, [el("label", { for: "rb-unit", text: this.word("unit") }), unitSelect, add]);
  };

  /** A new unit's model lines, the fewest its rules allow: each model it must have at its least (a sergeant the
   * unit must have, never one it may), then the rest of its least size in the models it may have most of, the
   * rank and file first; each line with the weapons and upgrades it must take. */
  function firstModels(army, unit) {
    var size = unit.composition.models;
    var left = Math.max(size && size.min !== null ? size.min : 1, 1);
    var lines = [];
    function room(model) {
      var limit = unit.composition.limits.filter(function (l) { return norm(l.model) === norm(model.name); })[0];
      return limit ? limit.max - limit.min : Infinity;
    }
    unit.composition.limits.forEach(function (l) {
      var model = find(unit.models, l.model);
      if (model && l.min > 0) lines.push({ model: model.name, count: l.min });
      if (model && l.min > 0) left -= l.min;
    });
    unit.models.slice().sort(function (a, b) { return room(b) - room(a); }).forEach(function (model) {
      var more = Math.min(left, room(model));
      if (more <= 0) return;
      var line = lines.filter(function (g) { return g.model === model.name; })[0];
      if (line) line.count += more;
      else lines.push({ model: model.name, count: more });
      left -= more;
    });
    if (!lines.length) lines.push({ model: unit.models[0].name, count: 1 });
    return lines.map(function (g) {
      return { model: g.model, count: g.count, weapons: firstWeapons(army, unit.weapons), upgrades: firstUpgrades(army, unit, find(unit.models, g.model)) };
    });
  }

  /** The weapons a model must choose: the least of each option for every model, up to the least the unit's
   * models carry in all, each from its option's first. */
  function firstWeapons(army, weapons) {
    var out = [];
    weapons.options.forEach(function (o) {
      var least = o.min === null || o.models === "one" ? 0 : o.min;
      for (var n = 0; n < least && o.weapons.length; n++) out.push(o.weapons[n % o.weapons.length]);
    });
    var least = weapons.total && weapons.total.min !== null ? weapons.total.min : 0;
    var spare = weapons.options.filter(function (o) { return o.weapons.length && (o.max === null || o.max > (o.min || 0)); })[0];
    for (var k = 0; out.length < least && spare && k < spare.weapons.length; k++) out.push(spare.weapons[k]);
    return out.map(function (id) { return army.weapons[id].name; });
  }

  /** The upgrades a model must take: the least the unit asks of each model, from the first offered to it. */
  function firstUpgrades(army, unit, model) {
    var least = unit.upgrades.min || 0;
    var offered = unit.upgrades.options.filter(function (o) { return offeredTo(o.models, model); }).map(function (o) { return o.upgrade; });
    return offered.slice(0, least).map(function (id) { return army.upgrades[id].name; });
  }

  /** Share, keep, open, print; copying the link says when it is done. */
  Builder.prototype.actions = function () {
    var self = this;
    var done = el("p", { class: "rb-copied", id: "rb-copied", role: "status", "aria-live": "polite" });
    var copy = el("button", { type: "button", class: "md-button", id: "rb-copy", text: this.word("copy") });
    copy.addEventListener("click", function () {
      self.save();
      done.textContent = "";
      if (navigator.clipboard) navigator.clipboard.writeText(location.href).then(function () { done.textContent = self.word("copied"); }, function () {});
    });
    var exportButton = el("button", { type: "button", class: "md-button", id: "rb-export", text: this.word("export") });
    exportButton.addEventListener("click", function () {
      var blob = new Blob([JSON.stringify(self.roster, null, 2) + "\n"], { type: "application/json" });
      var a = el("a", { href: URL.createObjectURL(blob), download: (self.roster.list || "roster") + ".json" });
      document.body.appendChild(a);
      a.click();
      a.remove();
    });
    // The file chooser itself is out of sight, not out of reach: its label is the button, and it still takes the focus.
    var importInput = el("input", { type: "file", id: "rb-import", class: "rb-sr", accept: ".json,application/json" });
    importInput.addEventListener("change", function () {
      var file = importInput.files && importInput.files[0];
      if (file) self.openFile(file);
    });
    var print = el("button", { type: "button", class: "md-button", id: "rb-print", text: this.word("print") });
    print.addEventListener("click", function () { window.print(); });
    var label = el("label", { for: "rb-import", class: "md-button rb-file", text: this.word("import") });
    return el("div", { class: "rb-actions" }, [copy, exportButton, importInput, label, print, done]);
  };

  /** A unit's cost as its card shows it: "+ a model without a printed cost" when one it takes has none, never a
      bare total that would read as the whole price. */
  Builder.prototype.costText = function (unit, entry, cost, currency) {
    var text = cost + (currency ? " " + currency.name : "");
    var unpriced = currency && (entry.models || []).some(function (group) {
      var model = group.model === null ? null : find(unit.models, group.model);
      return model && model.points === null;
    });
    return unpriced ? text + " + " + this.word("unpriced") : text;
  };

  /** The unit held back as reinforcements, where the module has them: worded by the module's data, like every
   * game term on the page (null where it has none). */
  Builder.prototype.reserve = function (entry, i) {
    var self = this;
    var extra = (this.data.module.army_building || {}).reinforcements;
    if (!extra) return null;
    var box = el("input", { type: "checkbox", id: "rb-" + i + "-reinforcements" });
    box.checked = entry.reinforcements === true;
    box.addEventListener("change", function () {
      if (box.checked) entry.reinforcements = true;
      else delete entry.reinforcements;
      self.change();
    });
    var currency = this.data.module.currency;
    var most = this.say("reinforcements", { points: extra.points, currency: currency ? currency.name : this.data.module.terms.points_unit });
    return el("div", { class: "rb-choice rb-reserve" }, [box, el("label", { for: "rb-" + i + "-reinforcements", text: extra.name + " (" + most + ")" })]);
  };

  Builder.prototype.unitCard = function (army, unit, entry, i, cost, terms, currency) {
    var self = this;
    var card = el("section", { class: "rb-unit", "aria-label": unit.name });
    var title = el("h3", { tabindex: "-1", text: unit.name + " — " + this.costText(unit, entry, cost, currency) });
    var remove = el("button", { type: "button", class: "rb-remove", id: "rb-remove-" + i, "aria-label": this.word("remove") + " " + unit.name, text: "×" });
    remove.addEventListener("click", function () {
      self.roster.units.splice(i, 1);
      self.change();
    });
    card.appendChild(el("div", { class: "rb-unit-head" }, [title, remove]));
    var reserve = this.reserve(entry, i);
    if (reserve) card.appendChild(reserve);
    entry.models.forEach(function (group, j) {
      var id = "rb-" + i + "-" + j;
      var row = el("div", { class: "rb-group" });
      var modelSelect = el("select", { id: id + "-model" });
      unit.models.forEach(function (m) {
        var o = el("option", { value: m.name, text: m.name + (m.points !== null ? " (" + m.points + ")" : "") });
        if (norm(m.name) === norm(group.model)) o.selected = true;
        modelSelect.appendChild(o);
      });
      modelSelect.addEventListener("change", function () { group.model = modelSelect.value; self.change(); });
      var count = el("input", { id: id + "-count", type: "number", min: "1", step: "1", inputmode: "numeric" });
      count.value = String(group.count);
      count.addEventListener("change", function () {
        var v = parseInt(count.value, 10);
        group.count = isNaN(v) || v < 1 ? 1 : v;
        self.change();
      });
      row.appendChild(el("div", { class: "rb-fields" }, [
        el("div", { class: "rb-pair" }, [el("label", { for: id + "-model", text: terms.model }), modelSelect]),
        el("div", { class: "rb-pair" }, [el("label", { for: id + "-count", text: terms.count }), count]),
      ]));
      var model = find(unit.models, group.model);
      var arms = self.weaponGroups(unit.weapons);
      if (arms.length) row.appendChild(self.choices(id + "-w", terms.weapon, arms, army.weapons, group.weapons, function (w) { return w.points; }));
      var offered = unit.upgrades.options.filter(function (o) { return offeredTo(o.models, model); }).map(function (o) { return o.upgrade; });
      if (offered.length) row.appendChild(self.choices(id + "-u", terms.upgrade, [{ legend: null, ids: offered }], army.upgrades, group.upgrades, function (u) { return u.points; }));
      if (entry.models.length > 1) {
        var drop = el("button", { type: "button", class: "rb-remove", "aria-label": self.word("remove") + " " + group.model, text: "×" });
        drop.addEventListener("click", function () { entry.models.splice(j, 1); self.change(); });
        row.appendChild(drop);
      }
      card.appendChild(row);
    });
    if (unit.models.length > 1 || unit.weapons.swaps.length || !unit.weapons.same) {
      var more = el("button", { type: "button", class: "md-button rb-more", id: "rb-" + i + "-more", text: this.word("group") });
      more.addEventListener("click", function () {
        entry.models.push({ model: unit.models[0].name, count: 1, weapons: [], upgrades: [] });
        self.change();
      });
      card.appendChild(more);
    }
    return card;
  };

  /** The weapons a model may choose, a group for each of the unit's choices (as its army list words them): each
   * option, headed by its lists and how many it takes, then each swap, headed by what it replaces; a weapon is
   * shown once, in its first group. */
  Builder.prototype.weaponGroups = function (weapons) {
    var self = this;
    var shown = [];
    var groups = [];
    var table = this.army().weapons;
    // A name shown once: two lists may print the same weapon (Arc Sword), and a roster names it, not its list.
    function add(legend, ids) {
      ids = ids.filter(function (w) {
        var name = norm(table[w].name);
        if (shown.indexOf(name) >= 0) return false;
        shown.push(name);
        return true;
      });
      if (ids.length) groups.push({ legend: legend, ids: ids });
    }
    // An option's `models` says how many models may take it ("one"), never which: every model is offered it.
    weapons.options.forEach(function (o) {
      var least = o.min === null ? 0 : o.min;
      var count = o.max === least ? String(least) : least + "\u2013" + (o.max === null ? self.word("any_number") : o.max);
      add(least === 0 && o.max === null ? o.label : self.say("option", { weapons: o.label, count: count }), o.weapons);
    });
    weapons.swaps.forEach(function (s) { add(self.say("swap", { weapons: s.label }), s.with); });
    return groups;
  };

  /** What the points field is called: a game size's points in the module's word for costs (Points), else its
   * budget as the module's page names it (Budget), else a limit; never the cost column's header ('Cost') alone. */
  Builder.prototype.limitWord = function (building, sized, currency) {
    if (sized) return currency ? currency.label : this.word("limit");
    return building.budget !== null && building.budget !== undefined ? this.word("budget") : this.word("limit");
  };

  /** A control's words with values put in: each '{name}' of the label, as the roster checker's messages. */
  Builder.prototype.say = function (key, values) {
    return fill(this.word(key), values);
  };

  /** Checkboxes for the weapons or upgrades a model may take, with their costs: one set per group (a group's
   * legend shown, or, for one group without a legend, the control's name for screen readers). */
  Builder.prototype.choices = function (id, legend, groups, table, chosen, price) {
    var self = this;
    var box = el("details", { class: "rb-choices" });
    var picked = chosen.map(norm);
    box.open = this.openChoices && this.openChoices[id] ? true : false;
    box.addEventListener("toggle", function () {
      self.openChoices = self.openChoices || {};
      self.openChoices[id] = box.open;
    });
    var summary = el("summary", { text: legend + (chosen.length ? ": " + chosen.join(", ") : "") });
    box.appendChild(summary);
    var n = 0;
    groups.forEach(function (group) {
      var field = el("fieldset", {}, [group.legend ? el("legend", { class: "rb-legend", text: group.legend }) : el("legend", { class: "rb-sr", text: legend })]);
      group.ids.forEach(function (key) { field.appendChild(choice(key, n++)); });
      box.appendChild(field);
    });
    return box;

    function choice(key, n) {
      var item = table[key];
      var input = el("input", { type: "checkbox", id: id + "-" + n });
      input.checked = picked.indexOf(norm(item.name)) >= 0;
      input.addEventListener("change", function () {
        var at = chosen.map(norm).indexOf(norm(item.name));
        if (input.checked && at < 0) chosen.push(item.name);
        if (!input.checked && at >= 0) chosen.splice(at, 1);
        self.change();
      });
      var p = price(item);
      return el("div", { class: "rb-choice" }, [input, el("label", { for: id + "-" + n, text: item.name + (p !== null && p !== undefined ? " (" + p + ")" : "") })]);
    }
  };

  /** The printed roster: one card per unit, then the full text of every special rule it uses. */
  Builder.prototype.printout = function (army, result, terms, currency) {
    var self = this;
    var data = this.data;
    var out = el("div", { class: "rb-print", id: "rb-print" });
    if (!army) return out;
    out.appendChild(el("h2", { text: army.name + " — " + result.total + (currency ? " " + currency.name : "") }));
    var used = [];
    function use(uses) {
      uses.forEach(function (u) { if (u.rule && used.indexOf(u.rule) < 0) used.push(u.rule); });
    }
    function rulesText(uses) {
      return uses.map(function (u) { return u.text; }).join(", ");
    }
    var modelCols = data.system.profiles.model;
    var weaponCols = data.system.profiles.weapon;
    this.roster.units.forEach(function (entry, i) {
      var unit = find(army.units, entry.unit);
      if (!unit) return;
      var card = el("article", { class: "rb-card" });
      card.appendChild(el("h3", { text: unit.name + " — " + self.costText(unit, entry, result.unit_costs[i], currency) }));
      var table = el("table", {});
      var headRow = el("tr", {}, [el("th", { text: terms.model }), el("th", { text: terms.count })]);
      modelCols.forEach(function (c) { headRow.appendChild(el("th", { text: c.label })); });
      headRow.appendChild(el("th", { text: terms.rules }));
      table.appendChild(el("thead", {}, [headRow]));
      var body = el("tbody");
      var weaponIds = [];
      var upgradeIds = [];
      entry.models.forEach(function (g) {
        var model = find(unit.models, g.model);
        if (!model) return;
        var profile = Object.assign({}, model.profile);
        var rules = model.rules.slice();
        var ups = unit.upgrades.fixed.slice();
        g.upgrades.forEach(function (name) { var id = findId(Object.keys(army.upgrades), army.upgrades, name); if (id) ups.push(id); });
        ups.forEach(function (id) {
          var u = army.upgrades[id];
          Object.assign(profile, u.sets);
          rules = rules.concat(u.grants);
          if (upgradeIds.indexOf(id) < 0) upgradeIds.push(id);
        });
        var fixed = has(unit.weapons.by_model, model.name) ? unit.weapons.by_model[model.name] : unit.weapons.fixed;
        var taken = [];
        g.weapons.forEach(function (name) { var id = findId(Object.keys(army.weapons), army.weapons, name); if (id) taken.push(id); });
        // A weapon given up in a swap is not carried, so not printed.
        var ws = fixed.slice();
        readWeapons(unit.weapons, fixed, taken).given_up.forEach(function (k) { ws.splice(ws.indexOf(k), 1); });
        ws.concat(taken).forEach(function (id) { if (weaponIds.indexOf(id) < 0) weaponIds.push(id); });
        use(rules);
        var row = el("tr", {}, [el("td", { text: model.name }), el("td", { text: String(g.count) })]);
        modelCols.forEach(function (c) { row.appendChild(el("td", { text: has(profile, c.key) ? String(profile[c.key]) : "" })); });
        row.appendChild(el("td", { text: rulesText(rules) }));
        body.appendChild(row);
      });
      table.appendChild(body);
      card.appendChild(table);
      if (weaponIds.length) {
        var wt = el("table", {});
        var wh = el("tr", {}, [el("th", { text: terms.weapon })]);
        weaponCols.forEach(function (c) { wh.appendChild(el("th", { text: c.label })); });
        wh.appendChild(el("th", { text: terms.rules }));
        wt.appendChild(el("thead", {}, [wh]));
        var wb = el("tbody");
        weaponIds.forEach(function (id) {
          var w = army.weapons[id];
          var rows = w.modes.length ? w.modes.map(function (m) { return { name: w.name + " (" + m.name + ")", profile: Object.assign({}, w.profile, m.profile), rules: w.rules.concat(m.rules) }; }) : [w];
          rows.forEach(function (r) {
            use(r.rules);
            var tr = el("tr", {}, [el("td", { text: r.name })]);
            weaponCols.forEach(function (c) { tr.appendChild(el("td", { text: has(r.profile, c.key) ? String(r.profile[c.key]) : "" })); });
            tr.appendChild(el("td", { text: rulesText(r.rules) }));
            wb.appendChild(tr);
          });
        });
        wt.appendChild(wb);
        card.appendChild(wt);
      }
      if (upgradeIds.length) {
        var ul = el("ul", { class: "rb-card-upgrades" });
        upgradeIds.forEach(function (id) {
          var u = army.upgrades[id];
          use(u.grants);
          ul.appendChild(el("li", {}, [el("strong", { text: u.name + ": " }), document.createTextNode(u.effect)]));
        });
        card.appendChild(ul);
      }
      out.appendChild(card);
    });
    if (used.length) {
      var appendix = el("section", { class: "rb-appendix" }, [el("h2", { text: this.word("rules_used") })]);
      used.map(function (id) { return data.rules[id]; }).sort(function (a, b) { return a.name < b.name ? -1 : a.name > b.name ? 1 : 0; }).forEach(function (r) {
        appendix.appendChild(el("p", {}, [el("strong", { text: r.title + ": " }), document.createTextNode(r.text)]));
      });
      out.appendChild(appendix);
    }
    return out;
  };

  function boot() {
    var root = document.querySelector("[data-rules-builder]");
    if (!root) return;
    var src = root.getAttribute("data-src");
    fetch(src)
      .then(function (r) {
        if (!r.ok) throw new Error(String(r.status));
        return r.json();
      })
      .then(function (data) {
        var builder = new Builder(root, data);
        window.cadenceBuilder = builder;
        builder.start();
        window.addEventListener("hashchange", function () {
          if (location.hash.indexOf("#r=") === 0 && location.hash.slice(3) !== encode(builder.roster)) builder.start();
        });
        root.setAttribute("data-ready", "true");
        if (window.performance && performance.mark) performance.mark("cadence-builder-ready");
      })
      .catch(function () {
        root.setAttribute("data-ready", "failed");
      });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
