/* arena report: sortable tables and the game viewer. Plain JavaScript, no network.
 *
 * The viewer's data (script#report-data) holds per game the moves and, per move,
 * the delta of a flat position snapshot computed in Python by replaying the
 * record; this script only applies deltas and draws them. Every text reaches the
 * page through textContent, never as HTML.
 */
(function () {
  "use strict";

  var root = document.documentElement;
  var svgNamespace = null; /* taken from the board drawing: the page names no URL */
  var ORDINALS = ["1st", "2nd", "3rd", "4th"];

  function h(tag, attrs, children) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }

  function s(tag, attrs, children) {
    var node = document.createElementNS(svgNamespace, tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }

  function setAttrs(node, attrs) {
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "text") node.textContent = attrs[key];
      else if (key === "className") node.setAttribute("class", attrs[key]);
      else if (attrs[key] !== null && attrs[key] !== undefined) node.setAttribute(key, attrs[key]);
    });
  }

  function append(node, children) {
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  /* ---- sortable tables ------------------------------------------------------------ */

  function makeSortable(table) {
    var body = table.tBodies[0];
    Array.prototype.forEach.call(body.rows, function (row, i) { row.dataset.order = i; });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
      th.tabIndex = 0;
      th.addEventListener("click", function () { sortBy(table, th, column); });
      th.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          sortBy(table, th, column);
        }
      });
    });
  }

  function sortBy(table, th, column) {
    var numeric = th.dataset.type === "num";
    var best = th.dataset.best || (numeric ? "desc" : "asc");
    var was = th.getAttribute("aria-sort");
    var dir = was ? (was === "ascending" ? "descending" : "ascending")
      : (best === "asc" ? "ascending" : "descending");
    Array.prototype.forEach.call(th.parentNode.cells, function (other) {
      other.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", dir);
    var sign = dir === "ascending" ? 1 : -1;
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = sortKey(a.cells[column], numeric), y = sortKey(b.cells[column], numeric);
      var order = numeric ? x - y : String(x).localeCompare(String(y));
      return order * sign || a.dataset.order - b.dataset.order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }

  function sortKey(cell, numeric) {
    var text = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent;
    if (!numeric) return text.toLowerCase();
    var value = parseFloat(text);
    return isNaN(value) ? -Infinity : value;
  }

  /* ---- the game viewer -------------------------------------------------------------- */

  function Viewer(data) {
    this.data = data;
    this.bots = data.bots;
    this.layout = data.layout || {};
    this.games = data.games || [];
    this.el = {
      viewer: document.getElementById("game-viewer"),
      select: document.getElementById("game-select"),
      slider: document.getElementById("move-slider"),
      counter: document.getElementById("move-counter"),
      list: document.getElementById("move-list"),
      notation: document.getElementById("notation"),
      result: document.getElementById("game-result"),
      seats: document.getElementById("seat-panel"),
      position: document.getElementById("position")
    };
    this.index = -1;
    this.move = 0;
    this.renderer = data.game === "sonnentau" ? new SonnentauView(this) : new SeasonsView(this);
  }

  Viewer.prototype.start = function () {
    var self = this, el = this.el;
    el.select.addEventListener("change", function () {
      self.open(Number(el.select.value), 0, true);
    });
    el.slider.addEventListener("input", function () { self.go(Number(el.slider.value), true); });
    Array.prototype.forEach.call(el.viewer.querySelectorAll("[data-step]"), function (button) {
      button.addEventListener("click", function () { self.step(button.dataset.step); });
    });
    el.list.addEventListener("click", function (event) {
      var target = event.target.closest("[data-move]");
      if (target) self.go(Number(target.dataset.move), true);
    });
    document.addEventListener("keydown", function (event) { self.key(event); });
    window.addEventListener("hashchange", function () { self.fromHash(); });
    if (!this.fromHash()) this.open(0, 0, false);
  };

  Viewer.prototype.key = function (event) {
    var tag = event.target && event.target.tagName;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    var steps = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
    if (steps[event.key]) {
      event.preventDefault();
      this.step(steps[event.key]);
    }
  };

  Viewer.prototype.step = function (what) {
    var last = this.actions.length;
    var to = { first: 0, prev: this.move - 1, next: this.move + 1, last: last }[what];
    this.go(to, true);
  };

  Viewer.prototype.fromHash = function () {
    var params = {};
    window.location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var pair = part.split("=");
      if (pair[0]) params[decodeURIComponent(pair[0])] = decodeURIComponent(pair[1] || "");
    });
    if (!("game" in params) && !("move" in params)) return false;
    var index = parseInt(params.game, 10);
    if (isNaN(index)) {
      index = this.games.findIndex(function (g) { return g.k === params.game; });
    }
    index = Math.max(0, Math.min(this.games.length - 1, isNaN(index) || index < 0 ? 0 : index));
    var move = parseInt(params.move, 10);
    this.open(index, isNaN(move) ? 0 : move, false);
    return true;
  };

  Viewer.prototype.toHash = function () {
    try {
      window.history.replaceState(null, "", "#game=" + this.index + "&move=" + this.move);
    } catch (error) {
      /* a page opened from some places may refuse; the viewer works without */
    }
  };

  Viewer.prototype.open = function (index, move, remember) {
    if (index !== this.index) {
      this.index = index;
      this.game = this.games[index];
      this.actions = this.game.a ? this.game.a.split(" ") : [];
      this.seatOf = this.game.z || "";
      this.positions = this.replay(this.game);
      this.el.select.value = String(index);
      this.el.slider.max = String(this.actions.length);
      this.el.viewer.dataset.gameIndex = String(index);
      this.el.viewer.dataset.moves = String(this.actions.length);
      this.buildMoveList();
      this.showResult();
      this.renderer.openGame(this.game);
    }
    this.go(move, remember);
  };

  Viewer.prototype.replay = function (game) {
    var position = Object.assign({}, this.layout.initial || {});
    var positions = [position];
    (game.d || []).forEach(function (delta) {
      position = Object.assign({}, position, delta);
      positions.push(position);
    });
    return positions;
  };

  Viewer.prototype.go = function (move, remember) {
    var last = this.actions.length;
    this.move = Math.max(0, Math.min(last, isNaN(move) ? 0 : move));
    var el = this.el;
    el.slider.value = String(this.move);
    el.counter.textContent = this.move + " / " + last;
    el.viewer.dataset.move = String(this.move);
    Array.prototype.forEach.call(el.viewer.querySelectorAll("[data-step]"), function (b) {
      var back = b.dataset.step === "first" || b.dataset.step === "prev";
      b.disabled = back ? this.move === 0 : this.move === last;
    }, this);
    this.highlight();
    this.showNotation();
    this.showSeats();
    if (this.game.e) {
      clear(el.position);
      el.position.appendChild(h("p", { className: "error", text: this.game.e }));
    } else {
      this.renderer.render(this.positions[this.move], this.move);
    }
    if (remember) this.toHash();
  };

  /* The seat that decides next (skipping chance moves); -1 when the game is over. */
  Viewer.prototype.nextSeat = function (move) {
    for (var i = move; i < this.seatOf.length; i++) {
      if (this.seatOf[i] !== "-") return Number(this.seatOf[i]);
    }
    return -1;
  };

  Viewer.prototype.lineStarts = function () {
    var starts = (this.game.ts || []).slice();
    if (!starts.length || starts[0] !== 0) starts.unshift(0);
    return starts;
  };

  Viewer.prototype.buildMoveList = function () {
    var list = this.el.list, self = this, game = this.game;
    clear(list);
    list.appendChild(h("li", { className: "turn" }, [
      h("span", { className: "turn-no", text: "" }),
      h("span", { className: "turn-seat" }),
      h("div", { className: "chips" }, [
        h("button", { type: "button", className: "move start", "data-move": "0",
                      text: "start position" })])
    ]));
    if (!this.actions.length) return;
    var starts = this.lineStarts(), notes = game.n || [];
    starts.forEach(function (start, line) {
      var end = line + 1 < starts.length ? starts[line + 1] : self.actions.length;
      var seat = self.nextSeat(start);
      var bot = seat >= 0 ? self.bots[game.s[seat]] : null;
      var chips = h("div", { className: "chips" });
      var item = h("li", { className: "turn", "data-line": String(line),
                           title: notes[line] || "" }, [
        h("span", { className: "turn-no", text: String(line + 1) + "." }),
        h("span", { className: "turn-seat",
                    style: "background:" + (bot ? self.renderer.seatColour(seat, bot) : "#ccc"),
                    title: bot ? "seat " + seat + ": " + bot.label : "" }),
        chips
      ]);
      for (var i = start; i < end; i++) {
        var chance = self.seatOf[i] === "-";
        chips.appendChild(h("button", {
          type: "button", className: chance ? "move chance" : "move",
          "data-move": String(i + 1), text: self.actions[i]
        }));
      }
      list.appendChild(item);
    });
  };

  Viewer.prototype.highlight = function () {
    var list = this.el.list;
    var previous = list.querySelectorAll(".current");
    Array.prototype.forEach.call(previous, function (node) { node.classList.remove("current"); });
    var button = list.querySelector('[data-move="' + this.move + '"]');
    if (!button) return;
    var turn = button.closest("li");
    button.classList.add("current");
    turn.classList.add("current");
    var top = turn.offsetTop, bottom = top + turn.offsetHeight;
    if (top < list.scrollTop || bottom > list.scrollTop + list.clientHeight) {
      list.scrollTop = Math.max(0, top - list.clientHeight / 2);
    }
  };

  Viewer.prototype.lineOf = function (move) {
    var starts = this.game.ts || [], line = -1;
    for (var i = 0; i < starts.length && starts[i] <= move - 1; i++) line = i;
    return line;
  };

  Viewer.prototype.showNotation = function () {
    var notes = this.game.n || [], text;
    if (this.move === 0) {
      text = "Start of the game.";
    } else {
      var line = this.lineOf(this.move);
      text = line >= 0 && line < notes.length - 1 ? notes[line] : "";
      var action = this.actions[this.move - 1];
      text = "move " + this.move + ": " + action + (text ? "\n" + text : "");
    }
    if (this.move === this.actions.length && notes.length) text += "\n" + notes[notes.length - 1];
    this.el.notation.textContent = text;
  };

  Viewer.prototype.showResult = function () {
    var game = this.game, bots = this.bots;
    var notes = game.n || [];
    var text = notes.length ? notes[notes.length - 1] : "";
    if (!text) {
      text = "Result: " + game.sc.join("-");
    }
    var failures = (game.st || []).map(function (status, seat) {
      return status === "ok" ? null : "seat " + seat + " (" + bots[game.s[seat]].label + "): " + status;
    }).filter(Boolean);
    if (failures.length) text += " — " + failures.join("; ");
    this.el.result.textContent = game.k + " · " + text;
  };

  Viewer.prototype.showSeats = function () {
    var panel = this.el.seats, game = this.game, self = this;
    var toMove = this.move < this.actions.length ? this.nextSeat(this.move) : -1;
    var position = this.positions[this.move] || {};
    clear(panel);
    game.s.forEach(function (botIndex, seat) {
      var bot = self.bots[botIndex];
      var final = self.move === self.actions.length;
      var status = (game.st || [])[seat];
      panel.appendChild(h("div", { className: "seat" + (seat === toMove ? " to-move" : ""),
                                   "data-seat": String(seat) }, [
        h("span", { className: "swatch", style: "background:" + self.renderer.seatColour(seat, bot) }),
        h("span", { className: "who", text: "seat " + seat + " · " + bot.label }),
        h("span", { className: "extra", text: self.renderer.seatExtra(seat, position) }),
        final ? h("span", { className: "rank", text: ORDINALS[game.r[seat]] || String(game.r[seat] + 1) }) : null,
        status && status !== "ok" ? h("span", { className: "failed", text: status }) : null,
        seat === toMove ? h("span", { className: "extra", text: "to move" }) : null
      ]));
    });
  };

  /* The dice of the roll in progress after `move` moves: values, and the roll's first move. */
  function lastRoll(actions, move, stopAt) {
    for (var j = move - 1; j >= 0; j--) {
      var action = actions[j];
      if (stopAt && j < move - 1 && action.indexOf(stopAt) === 0) return null;
      if (action.indexOf("dice:") === 0) {
        return { values: action.slice(5).split(",").map(Number), at: j };
      }
    }
    return null;
  }

  function diceRow(values, classes, label) {
    var row = h("div", { className: "dice" }, [h("span", { className: "label", text: label })]);
    if (!values.length) row.appendChild(h("span", { className: "extra", text: "—" }));
    values.forEach(function (value, slot) {
      row.appendChild(h("span", { className: "die " + (classes[slot] || ""), text: String(value),
                                  title: "die slot " + slot }));
    });
    return row;
  }

  /* ---- Seasons of the Sun: the two circles as a table --------------------------------- */

  function SeasonsView(viewer) {
    this.viewer = viewer;
    this.layout = viewer.layout;
  }

  SeasonsView.prototype.openGame = function () {};

  SeasonsView.prototype.seatColour = function (seat, bot) { return bot.colour; };

  SeasonsView.prototype.seatExtra = function (seat) {
    return seat === 0 ? "outer circle" : "inner circle";
  };

  SeasonsView.prototype.render = function (position, move) {
    var viewer = this.viewer, layout = this.layout, game = viewer.game;
    var container = viewer.el.position;
    var placed = -1, placedSeat = -1;
    if (move > 0) {
      var action = viewer.actions[move - 1];
      if (action.indexOf("place:") === 0) {
        placed = layout.ids.indexOf(action.slice(6));
        placedSeat = Number(viewer.seatOf[move - 1]);
      }
    }
    var head = h("tr", {}, [h("th", { className: "who", text: "" })]);
    layout.sectors.forEach(function (name, i) {
      head.appendChild(h("th", { className: "sector " + (layout.ids[i].indexOf("max") === 0 ? "max" : "min"),
                                 text: name, title: layout.ids[i] + " (" + layout.values[i] + " points)" }));
    });
    var rows = [0, 1].map(function (seat) {
      var bot = viewer.bots[game.s[seat]];
      var row = h("tr", { "data-seat": String(seat) }, [
        h("th", { className: "who", title: bot.label }, [
          h("span", { className: "dot", style: "background:" + bot.colour }),
          seat === 0 ? "outer" : "inner"])
      ]);
      layout.sectors.forEach(function (name, i) {
        var value = position[(seat === 0 ? "a" : "b") + i] || 0;
        var winner = position["w" + i];
        var classes = [];
        var style = null;
        if (!value) classes.push("empty");
        else if (winner === seat) { classes.push("won"); style = "background:" + bot.colour; }
        else if (winner === 1 - seat) classes.push("lost");
        if (i === placed && seat === placedSeat) classes.push("changed");
        row.appendChild(h("td", { className: classes.join(" "), style: style,
                                  text: value ? String(value) : "·" }));
      });
      return row;
    });
    var table = h("table", { className: "circles", "aria-label": "the two circles" }, [
      h("thead", {}, [head]), h("tbody", {}, rows)]);
    var score = position.s || [0, 0];
    var roll = lastRoll(viewer.actions, move, "place:");
    var classes = [];
    if (roll) {
      var before = viewer.actions[roll.at - 1] || "";
      var pending = viewer.actions[move - 1] || "";
      var slots = pending.indexOf("reroll:") === 0 ? pending.slice(7)
        : before.indexOf("reroll:") === 0 && roll.at === move - 1 ? before.slice(7) : "";
      slots.split(",").filter(Boolean).forEach(function (slot) { classes[Number(slot)] = "rerolled"; });
    }
    var total = roll ? roll.values.reduce(function (a, b) { return a + b; }, 0) : 0;
    var status = h("div", { className: "status-line" }, [
      h("span", { className: "score-big" }, [
        h("span", { style: "color:" + viewer.bots[game.s[0]].colour, text: String(score[0]) }),
        " – ",
        h("span", { style: "color:" + viewer.bots[game.s[1]].colour, text: String(score[1]) })
      ]),
      diceRow(roll ? roll.values : [], classes, "dice"),
      roll ? h("span", { className: "extra", text: "total " + total }) : null
    ]);
    clear(container);
    container.appendChild(table);
    container.appendChild(status);
  };

  /* ---- Sonnentau: pieces over the board drawing -------------------------------------------- */

  function SonnentauView(viewer) {
    this.viewer = viewer;
    this.layout = viewer.layout;
    var svg = viewer.el.position.querySelector("svg");
    this.svg = svg;
    if (svg) {
      svgNamespace = svg.namespaceURI;
      this.layer = s("g", { id: "piece-layer" });
      svg.appendChild(this.layer);
    }
    this.dice = h("div", { className: "status-line" });
    viewer.el.position.appendChild(this.dice);
  }

  SonnentauView.prototype.openGame = function () {};

  SonnentauView.prototype.seatColour = function (seat) {
    return (this.layout.colours || [])[seat] || "#999";
  };

  SonnentauView.prototype.seatExtra = function (seat, position) {
    var places = this.places(seat, position), L = this.layout.places;
    var home = places.filter(function (p) { return p === L.home; }).length;
    var start = places.filter(function (p) { return p === L.start; }).length;
    return (this.layout.names || [])[seat] + " · home " + home + " · start " + start;
  };

  SonnentauView.prototype.places = function (seat, position) {
    var out = [];
    for (var piece = 0; piece < (this.layout.pieces || 5); piece++) out.push(position["" + seat + piece]);
    return out;
  };

  SonnentauView.prototype.ball = function (x, y, seat, label, r, ring) {
    var g = s("g", { className: "piece", "data-seat": String(seat) });
    if (ring) {
      g.appendChild(s("circle", { cx: x, cy: y, r: r * 1.55, fill: "none", stroke: "#111827",
                                  "stroke-width": 2.5, "stroke-opacity": 0.75 }));
    }
    g.appendChild(s("circle", { cx: x + r * 0.18, cy: y + r * 0.18, r: r, fill: "#000",
                                "fill-opacity": 0.25 }));
    g.appendChild(s("circle", { cx: x, cy: y, r: r, fill: "url(#ball" + (seat % 4) + ")",
                                stroke: "#3b2a1a", "stroke-width": 1 }));
    if (label !== "") {
      g.appendChild(s("text", { x: x, y: y + r * 0.38, "text-anchor": "middle",
                                "font-size": (r * 1.05).toFixed(1), "font-weight": "bold",
                                fill: seat % 4 === 0 ? "#2b2118" : "#ffffff", text: label }));
    }
    return g;
  };

  SonnentauView.prototype.stacks = function (position, place, at, dx, caption) {
    var L = this.layout, self = this, small = L.r * 0.72, step = small * 2.3;
    var rows = [];
    this.viewer.game.s.forEach(function (bot, seat) {
      var count = self.places(seat, position).filter(function (p) { return p === place; }).length;
      if (count) rows.push([seat, count]);
    });
    var left = at[0] + dx, top = at[1] - (rows.length - 1) * step / 2;
    if (rows.length && caption) {
      this.layer.appendChild(s("text", { x: left - small, y: top - small - 6, "font-size": 12,
                                         "font-style": "italic", fill: "#2b2118", text: caption }));
    }
    rows.forEach(function (row, i) {
      var y = top + i * step;
      for (var k = 0; k < row[1]; k++) {
        self.layer.appendChild(self.ball(left + k * small * 1.6, y, row[0], "", small, false));
      }
      self.layer.appendChild(s("text", { x: left + (row[1] - 0.2) * small * 1.6 + 5, y: y + 4,
                                         "font-size": 13, fill: "#2b2118", text: String(row[1]) }));
    });
  };

  SonnentauView.prototype.render = function (position, move) {
    var L = this.layout, viewer = this.viewer, self = this;
    if (!this.layer) {
      clear(viewer.el.position);
      viewer.el.position.appendChild(h("p", { className: "error", text: L.error || "no board" }));
      return;
    }
    clear(this.layer);
    var moved = {};
    var delta = move > 0 ? (viewer.game.d[move - 1] || {}) : {};
    Object.keys(delta).forEach(function (key) { if (/^\d\d$/.test(key)) moved[key] = true; });
    viewer.game.s.forEach(function (bot, seat) {
      self.places(seat, position).forEach(function (place, piece) {
        if (place >= 0 && L.fields[place]) {
          var xy = L.fields[place];
          self.layer.appendChild(self.ball(xy[0], xy[1], seat, String(piece), L.r,
                                           moved["" + seat + piece]));
        }
      });
    });
    this.stacks(position, L.places.start, L.start, 32, "");
    this.stacks(position, L.places.home, L.goal, 55, "home");
    var hit = position.x;
    if (hit && L.fields[hit[2]]) {
      var at = L.fields[hit[2]], off = 0.16 * 130;
      this.layer.appendChild(s("circle", { cx: at[0], cy: at[1], r: L.r * 1.6, fill: "none",
                                           stroke: "#e01010", "stroke-width": 2,
                                           "stroke-dasharray": "4 3" }));
      this.layer.appendChild(this.ball(at[0] + off, at[1] - off, hit[0], String(hit[1]),
                                       L.r * 0.8, false));
    }
    this.showDice(move);
  };

  SonnentauView.prototype.showDice = function (move) {
    var actions = this.viewer.actions;
    var roll = lastRoll(actions, move, null);
    var classes = [];
    if (roll) {
      for (var j = roll.at + 1; j < move; j++) {
        var m = /^(?:move|enter):d(\d)/.exec(actions[j]);
        if (m) classes[Number(m[1])] = "used";
      }
    }
    clear(this.dice);
    this.dice.appendChild(diceRow(roll ? roll.values : [], classes, "dice"));
    var seat = roll ? Number(this.viewer.seatOf[roll.at + 1] || -1) : -1;
    if (roll && seat >= 0) {
      this.dice.appendChild(h("span", { className: "extra",
        text: "rolled by seat " + seat + " (" + (this.layout.names || [])[seat] + ")" }));
    }
  };

  /* ---- start ------------------------------------------------------------------------------- */

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);
    var source = document.getElementById("report-data");
    var data = JSON.parse(source.textContent);
    if (document.getElementById("game-viewer") && (data.games || []).length) {
      new Viewer(data).start();
    }
    var expected = Number(root.getAttribute("data-scripts"));
    root.setAttribute("data-report-ready",
                      document.scripts.length === expected ? "ok" : "unexpected-script");
  }

  try {
    init();
  } catch (error) {
    root.setAttribute("data-report-ready", "error");
    root.setAttribute("data-report-error", String(error && error.message || error));
  }
})();
