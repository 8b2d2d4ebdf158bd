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
  Verdict.prototype.add = function (severity, code, path, values) {
    if (has(values, "expected") && has(this.words, String(values.expected))) {
      values = Object.assign({}, values, { expected: this.words[String(values.expected)] });
    }
    var message = fill(this.messages[code], Object.assign(has(this.words, "army") ? { army: this.words.army } : {}, values));
    this.problems.push({ severity: severity, code: code, message: message, path: path });
  };

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
      var room = places.filter(function (i) { return usage[i] < options[i].max; });
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
      if (usage[i] > o.max) problems.push(["roster-option-max", { count: usage[i], option: o.label, max: o.max }]);
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

  function checkUnit(data, army, unit, groups, path, currency, verdict) {
    var weapons = unit.weapons;
    var upgrades = unit.upgrades;
    var allowed = [];
    weapons.options.forEach(function (o) { allowed = allowed.concat(o.weapons); });
    weapons.swaps.forEach(function (s) { allowed = allowed.concat(s.with); });
    var composition = unit.composition;
    var rules = data.module.army_building ? data.module.army_building.cost : null;
    var total = 0;
    var modelCount = 0;
    var byModel = {};
    var loadouts = [];
    var swapped = {};
    var optioned = {};
    var taken = {};
    var arms = {}; // every weapon the models carry, chosen or fixed, by id (the limits per army count them)
    groups.forEach(function (group, j) {
      var gpath = path + ".models[" + j + "]";
      if (group.model === null) return;
      var index = -1;
      for (var n = 0; n < unit.models.length; n++) {
        if (norm(unit.models[n].name) === norm(group.model)) { index = n; break; }
      }
      if (index < 0) {
        verdict.add("warning", "roster-dropped", gpath + ".model", { what: "model", name: group.model, owner: unit.name });
        return;
      }
      var model = unit.models[index];
      if (model.points === null && data.module.currency !== null) { // a cost the source does not print
        verdict.add("warning", "roster-unpriced", gpath + ".model", { model: model.name, unit: unit.name });
      }
      var chosenWeapons = [];
      group.weapons.forEach(function (name, k) {
        var wid = findId(allowed, army.weapons, name);
        if (wid === null) {
          wid = findId(Object.keys(army.weapons), army.weapons, name);
          if (wid === null) {
            verdict.add("warning", "roster-dropped", gpath + ".weapons[" + k + "]", { what: "weapon", name: name, owner: army.name });
            return;
          }
          verdict.add("error", "roster-weapon", gpath + ".weapons[" + k + "]", { model: model.name, unit: unit.name, weapon: army.weapons[wid].name });
        }
        chosenWeapons.push(wid);
      });
      var offered = upgrades.options.filter(function (o) { return offeredTo(o.models, model); }).map(function (o) { return o.upgrade; });
      var chosenUpgrades = [];
      group.upgrades.forEach(function (name, k) {
        var uid = findId(offered, army.upgrades, name);
        if (uid === null) {
          uid = findId(Object.keys(army.upgrades), army.upgrades, name);
          if (uid === null) {
            verdict.add("warning", "roster-dropped", gpath + ".upgrades[" + k + "]", { what: "upgrade", name: name, owner: army.name });
            return;
          }
          verdict.add("error", "roster-upgrade", gpath + ".upgrades[" + k + "]", { model: model.name, unit: unit.name, upgrade: army.upgrades[uid].name });
        }
        chosenUpgrades.push(uid);
      });
      var fixed = has(weapons.by_model, model.name) ? weapons.by_model[model.name] : weapons.fixed;
      var read = readWeapons(weapons, fixed, chosenWeapons);
      read.problems.forEach(function (p) {
        var values = Object.assign({ model: model.name, unit: unit.name }, p[1]);
        if (has(values, "weapon")) values.weapon = army.weapons[values.weapon].name;
        verdict.add("error", p[0], gpath, values);
      });
      var carried = fixed.slice();
      read.given_up.forEach(function (k) { carried.splice(carried.indexOf(k), 1); });
      var built = buildModel(
        model,
        upgrades.fixed.concat(chosenUpgrades).map(function (u) { return army.upgrades[u]; }),
        carried.concat(chosenWeapons).map(function (w) { return army.weapons[w]; }),
        rules
      );
      var count = group.count;
      total += built * count;
      modelCount += count;
      byModel[model.name] = (byModel[model.name] || 0) + count;
      if (!read.swaps.length) loadouts.push(chosenWeapons.slice().sort().join("\u0000"));
      read.swaps.filter(function (j, n) { return read.swaps.indexOf(j) === n; }).forEach(function (j) { swapped[j] = (swapped[j] || 0) + count; });
      read.options.forEach(function (i) { optioned[i] = (optioned[i] || 0) + count; });
      chosenUpgrades.forEach(function (u) { taken[u] = (taken[u] || 0) + count; });
      carried.concat(chosenWeapons).forEach(function (w) { arms[w] = (arms[w] || 0) + count; });
      var spent = built - (model.points || 0);
      var cap = unit.spending_cap === null && unit.spending_cap_own_cost ? model.points || 0 : unit.spending_cap;
      if (cap !== null && spent > cap) {
        verdict.add("error", "roster-spending-cap", gpath, { model: model.name, unit: unit.name, spent: spent, currency: currency, cap: cap });
      }
      var t = weapons.total;
      if (t && t.min !== null && read.slots < t.min) verdict.add("error", "roster-weapon-count-min", gpath, { model: model.name, unit: unit.name, count: read.slots, min: t.min });
      if (t && t.max !== null && read.slots > t.max) verdict.add("error", "roster-weapon-count-max", gpath, { model: model.name, unit: unit.name, count: read.slots, max: t.max });
      var nu = chosenUpgrades.length;
      if (upgrades.min !== null && nu < upgrades.min) verdict.add("error", "roster-upgrade-count-min", gpath, { model: model.name, unit: unit.name, count: nu, min: upgrades.min });
      if (upgrades.max !== null && nu > upgrades.max) verdict.add("error", "roster-upgrade-count-max", gpath, { model: model.name, unit: unit.name, count: nu, max: upgrades.max });
      chosenUpgrades.filter(function (u, n) { return chosenUpgrades.indexOf(u) === n; }).forEach(function (key) {
        var u = army.upgrades[key];
        var times = chosenUpgrades.filter(function (x) { return x === key; }).length;
        if (u.max_per_model !== null && times > u.max_per_model) {
          verdict.add("error", "roster-upgrade-per-model", gpath, { model: model.name, unit: unit.name, upgrade: u.name, count: times, limit: u.limit || u.max_per_model });
        }
      });
    });
    var size = composition.models || { min: null, max: null };
    var least = size.min !== null ? size.min : 1;
    if (modelCount < least) verdict.add("error", "roster-models-min", path, { unit: unit.name, count: modelCount, min: least });
    if (size.max !== null && modelCount > size.max) verdict.add("error", "roster-models-max", path, { unit: unit.name, count: modelCount, max: size.max });
    composition.limits.forEach(function (limit) {
      var have = 0;
      Object.keys(byModel).forEach(function (name) { if (norm(name) === norm(limit.model)) have += byModel[name]; });
      if (have > limit.max) verdict.add("error", "roster-model-limit", path, { unit: unit.name, count: have, model: limit.model, max: limit.max });
      if (have < limit.min) verdict.add("error", "roster-model-limit-min", path, { unit: unit.name, count: have, model: limit.model, min: limit.min });
    });
    if (weapons.same && loadouts.some(function (l) { return l !== loadouts[0]; })) {
      verdict.add("error", "roster-same-weapons", path, { unit: unit.name });
    }
    weapons.swaps.forEach(function (swap, j) {
      var n = swapped[j] || 0;
      var m = most(swap.models);
      if (m !== null && n > m) verdict.add("error", "roster-swap-models", path, { unit: unit.name, count: n, replaced: swap.label, max: m });
      if (swap.models === "all" && n > 0 && n < modelCount) verdict.add("error", "roster-swap-all", path, { unit: unit.name, count: n, models: modelCount, replaced: swap.label });
    });
    weapons.options.forEach(function (option, i) {
      var n = optioned[i] || 0;
      var m = most(option.models);
      if (m !== null && n > m) verdict.add("error", "roster-option-models", path, { unit: unit.name, count: n, option: option.label, max: m });
    });
    return { cost: total, upgrades: taken, weapons: arms };
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
        verdict.add("warning", "roster-dropped", "units[" + i + "].unit", { what: "unit", name: entry.unit, owner: army.name });
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
    checkArmy(army, building, roster, kept, currency, verdict, reserve);
    return verdict;
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
    return { total: verdict.total, unit_costs: verdict.unit_costs, problems: verdict.problems, roster: roster };
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

  var api = { norm: norm, normalise: normalise, evaluate: evaluate, check: check, encode: encode, decode: decode, buildModel: buildModel };
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
    this.notices = dropped.map(function (p) { return p.message; });
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

  Builder.prototype.save = function () {
    var code = encode(this.roster);
    try {
      history.replaceState(null, "", "#r=" + code);
    } catch (e) { /* a file:// page may refuse; the roster is still kept below */ }
    try {
      localStorage.setItem(this.storageKey, code);
    } catch (e) { /* private mode: nothing to keep */ }
  };

  Builder.prototype.start = function () {
    var hash = location.hash.replace(/^#/, "");
    var stored = null;
    try { stored = localStorage.getItem(this.storageKey); } catch (e) { stored = null; }
    var code = hash.indexOf("r=") === 0 ? hash.slice(2) : stored;
    if (code) {
      try {
        this.load(decode(code));
      } catch (e) {
        this.roster = this.emptyRoster(this.data.lists[0]);
        this.notices = [this.data.messages["roster-link"]];
      }
    }
    this.render();
  };

  Builder.prototype.change = function () {
    this.save();
    this.render();
  };

  Builder.prototype.render = function () {
    var self = this;
    var data = this.data;
    var terms = data.module.terms;
    var currency = data.module.currency;
    var building = data.module.army_building || {};
    var army = this.army();
    var result = check(data, this.roster);
    var root = this.root;
    var focusId = document.activeElement && document.activeElement.id;
    root.textContent = "";

    // List and game size.
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
    var pointsInput = el("input", { id: "rb-points", type: "number", min: "0", step: "1", inputmode: "numeric" });
    pointsInput.value = this.roster.points === null ? "" : String(this.roster.points);
    pointsInput.addEventListener("change", function () {
      var v = parseInt(pointsInput.value, 10);
      self.roster.points = isNaN(v) || v < 0 ? null : v;
      self.change();
    });
    sizeSelect.addEventListener("change", function () {
      self.roster.points = parseInt(sizeSelect.value, 10);
      self.change();
    });
    // Each label kept with its control: on a phone a row breaks between the pairs, never inside one.
    var head = el("div", { class: "rb-head" }, [
      el("div", { class: "rb-pair" }, [el("label", { for: "rb-list", text: this.word("list") }), listSelect]),
      sizeSelect.options.length ? el("div", { class: "rb-pair" }, [el("label", { for: "rb-size", text: this.word("size") }), sizeSelect]) : null,
      el("div", { class: "rb-pair" }, [el("label", { for: "rb-points", text: this.limitWord(building, sizeSelect.options.length > 0, currency) }), pointsInput]),
    ]);
    root.appendChild(head);

    // Total and every problem, announced as they change.
    var total = el("p", { class: "rb-total", id: "rb-total" });
    total.textContent = this.word("total") + ": " + result.total + (this.roster.points !== null ? " / " + this.roster.points : "") + (currency ? " " + currency.name : "");
    var status = el("div", { class: "rb-status", role: "status", "aria-live": "polite" }, [total]);
    var errors = result.problems.filter(function (p) { return p.code !== "roster-dropped"; });
    var list = el("ul", { class: "rb-problems", id: "rb-problems" });
    errors.forEach(function (p) {
      list.appendChild(el("li", { class: "rb-" + p.severity, "data-code": p.code, text: p.message }));
    });
    status.setAttribute("data-verdict", errors.some(function (p) { return p.severity === "error"; }) ? "illegal" : "legal");
    status.appendChild(list);
    if (this.notices.length) {
      var notes = el("ul", { class: "rb-notices", id: "rb-notices" });
      this.notices.forEach(function (n) { notes.appendChild(el("li", { text: n })); });
      status.appendChild(notes);
    }
    root.appendChild(status);

    // Adding a unit.
    if (army) {
      var unitSelect = el("select", { id: "rb-unit" });
      army.units.forEach(function (u) { unitSelect.appendChild(el("option", { value: u.id, text: u.name })); });
      var add = el("button", { type: "button", id: "rb-add", class: "md-button", text: this.word("add") });
      add.addEventListener("click", function () {
        var unit = find(army.units, unitSelect.value);
        var size = unit.composition.models;
        var count = size && size.min !== null ? Math.max(size.min, 1) : 1;
        self.roster.units.push({ unit: unit.name, models: [{ model: unit.models[0].name, count: count, weapons: [], upgrades: [] }] });
        self.change();
        var cards = root.querySelectorAll(".rb-unit h3");
        if (cards.length) cards[cards.length - 1].focus();
      });
      root.appendChild(el("div", { class: "rb-adder" }, [el("label", { for: "rb-unit", text: this.word("unit") }), unitSelect, add]));
    }

    // The roster's units.
    var units = el("div", { class: "rb-units" });
    this.roster.units.forEach(function (entry, i) {
      var unit = army ? find(army.units, entry.unit) : null;
      if (!unit) return;
      units.appendChild(self.unitCard(army, unit, entry, i, result.unit_costs[i], terms, currency));
    });
    root.appendChild(units);

    // Share, keep, print.
    var copy = el("button", { type: "button", class: "md-button", id: "rb-copy", text: this.word("copy") });
    copy.addEventListener("click", function () {
      self.save();
      if (navigator.clipboard) navigator.clipboard.writeText(location.href).catch(function () {});
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
      if (!file) return;
      file.text().then(function (text) {
        try {
          self.load(JSON.parse(text));
        } catch (e) {
          self.notices = [data.messages["roster-link"]];
        }
        self.change();
      });
    });
    var print = el("button", { type: "button", class: "md-button", id: "rb-print", text: this.word("print") });
    print.addEventListener("click", function () { window.print(); });
    root.appendChild(el("div", { class: "rb-actions" }, [copy, exportButton, importInput, el("label", { for: "rb-import", class: "md-button rb-file", text: this.word("import") }), print]));

    root.appendChild(this.printout(army, result, terms, currency));
    if (focusId) {
      var again = document.getElementById(focusId);
      if (again) again.focus();
    }
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
    var extra = (this.data.module.army_building || {}).reinforcements;
    if (extra) {
      // Held back as reinforcements: worded by the module's data, like every game term on the page.
      var reserve = el("input", { type: "checkbox", id: "rb-" + i + "-reinforcements" });
      reserve.checked = entry.reinforcements === true;
      reserve.addEventListener("change", function () {
        if (reserve.checked) entry.reinforcements = true;
        else delete entry.reinforcements;
        self.change();
      });
      card.appendChild(el("div", { class: "rb-choice rb-reserve" }, [reserve, el("label", { for: "rb-" + i + "-reinforcements", text: extra.name + " (" + extra.points + ")" })]));
    }
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
      var arms = self.weaponGroups(unit.weapons, model);
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
   * option, headed by its lists and how many it takes, then each swap, headed by what it replaces. An option
   * for other models is left out; a weapon is shown once, in its first group. */
  Builder.prototype.weaponGroups = function (weapons, model) {
    var self = this;
    var shown = [];
    var groups = [];
    function add(legend, ids) {
      ids = ids.filter(function (w) { return shown.indexOf(w) < 0; });
      shown = shown.concat(ids);
      if (ids.length) groups.push({ legend: legend, ids: ids });
    }
    weapons.options.forEach(function (o) {
      if (!offeredTo(o.models, model)) return;
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
