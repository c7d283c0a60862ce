/* arena report: sortable tables and the game viewer. Plain JavaScript, no network.
 *
 * The viewer's data (script#report-data) holds per game its log and, per move (one
 * line of the log), the action strings and the delta of a flat position snapshot,
 * computed in Python by replaying the record; this script only applies deltas and
 * draws them. Games are numbered from 1 (the data's `no`), moves from 1 (move 0 is
 * the start), in the page and in links: #game=3&move=10. Every text reaches the page
 * through textContent, never as HTML.
 */
(function () {
  "use strict";

  var root = document.documentElement;
  var svgNamespace = null; /* taken from the board drawing: the page names no URL */
  var ORDINALS = ["1st", "2nd", "3rd", "4th"];
  var LINE_NUMBER = /^\d+\.\s+/;

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
    var self = this;
    this.bots = data.bots;
    this.layout = data.layout || {};
    this.games = [];
    this.byNumber = {};
    this.el = {
      viewer: document.getElementById("game-viewer"),
      part: document.getElementById("game-part"),
      select: document.getElementById("game-select"),
      slider: document.getElementById("move-slider"),
      counter: document.getElementById("move-counter"),
      list: document.getElementById("move-list"),
      notation: document.getElementById("notation"),
      result: document.getElementById("game-result"),
      seats: document.getElementById("seat-panel"),
      position: document.getElementById("position"),
      dice: document.getElementById("dice"),
      note: document.getElementById("viewer-note")
    };
    /* The games come in parts: the page holds the first, a script file beside the page
       each later one (data.folder/part-N.js), loaded when one of its games is wanted. */
    this.parts = data.parts || [[1, Infinity]];
    this.partKeys = data.partKeys || [];
    this.folder = data.folder || "";
    this.labels = {};
    this.waiting = {};
    this.shownPart = 1;
    this.addGames(1, data.games || [], Array.prototype.map.call(this.el.select.options,
                                                                function (o) { return o.text; }));
    this.index = -1;
    this.move = 0;
    this.renderer = data.game === "sonnentau" ? new SonnentauView(this) : new SeasonsView(this);
  }

  Viewer.prototype.addGames = function (part, games, labels) {
    var self = this;
    this.labels[part] = games.map(function (game, i) { return [game.no, labels[i]]; });
    games.forEach(function (game) {
      self.byNumber[game.no] = self.games.length;
      self.games.push(game);
    });
  };

  /* The part (from 1) that holds game `number`, or 0 if none does. */
  Viewer.prototype.partOf = function (number) {
    for (var i = 0; i < this.parts.length; i++) {
      if (number >= this.parts[i][0] && number <= this.parts[i][1]) return i + 1;
    }
    return 0;
  };

  /* Calls done(true) once part `part` is loaded, done(false) if its file cannot be. */
  Viewer.prototype.loadPart = function (part, done) {
    var self = this;
    if (this.labels[part]) { done(true); return; }
    if (this.waiting[part]) { this.waiting[part].push(done); return; }
    this.waiting[part] = [done];
    var script = document.createElement("script");
    function finish(loaded) {
      if (script.parentNode) script.parentNode.removeChild(script);
      var calls = self.waiting[part] || [];
      delete self.waiting[part];
      calls.forEach(function (call) { call(loaded && !!self.labels[part]); });
    }
    window.arenaReportPart = function (number, payload) {
      if (!self.labels[number]) self.addGames(number, payload.games || [], payload.labels || []);
    };
    script.onload = function () { finish(true); };
    script.onerror = function () { finish(false); };
    script.src = this.partFile(part);
    document.body.appendChild(script);
  };

  Viewer.prototype.partFile = function (part) {
    return encodeURIComponent(this.folder) + "/part-" + part + ".js";
  };

  /* The game menu lists the games of one part at a time. */
  Viewer.prototype.showPart = function (part) {
    if (part === this.shownPart) return;
    var select = this.el.select;
    clear(select);
    this.labels[part].forEach(function (entry) {
      select.appendChild(h("option", { value: String(entry[0]), text: entry[1] }));
    });
    this.shownPart = part;
    if (this.el.part) this.el.part.value = String(part);
  };

  /* Opens game `number` at `move` once its part is there; a game the viewer cannot show
     is said so, and the game on view stays as it was. */
  Viewer.prototype.openNumber = function (number, move, remember, scroll) {
    var self = this, part = this.partOf(number);
    var missing = "Game " + number + " is not in this viewer: it holds the games listed in its menu.";
    if (!part) {
      this.tell(missing);
      return;
    }
    this.loadPart(part, function (loaded) {
      if (!loaded) {
        self.tell("Game " + number + " could not be loaded: its file " + self.partFile(part) +
                  " is not beside this page (keep the folder " + self.folder +
                  " with the report).");
        return;
      }
      if (self.byNumber[number] === undefined) {
        self.tell(missing);
        return;
      }
      self.tell("");
      self.open(self.byNumber[number], move, remember);
      if (scroll) self.el.viewer.scrollIntoView({ block: "start" });
    });
  };

  Viewer.prototype.start = function () {
    var self = this, el = this.el;
    el.select.addEventListener("change", function () {
      self.openNumber(Number(el.select.value), 0, true, false);
    });
    if (el.part) {
      el.part.addEventListener("change", function () {
        self.openNumber(self.parts[Number(el.part.value) - 1][0], 0, true, false);
      });
    }
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
    this.open(0, 0, false);
    this.fromHash();
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

  Viewer.prototype.moves = function () { return (this.game.z || "").length; };

  Viewer.prototype.step = function (what) {
    var to = { first: 0, prev: this.move - 1, next: this.move + 1, last: this.moves() }[what];
    this.go(to, true);
  };

  /* Opens the game and move a #game=N&move=M link names, and brings the viewer into view
     (the page has no element with that id, so the browser would not scroll). A game is
     named by its number, or by its key among the games loaded. */
  Viewer.prototype.fromHash = function () {
    var params = {}, unreadable = "";
    function decoded(text) {
      try {
        return decodeURIComponent(text);
      } catch (error) {  /* a malformed escape: read it as written, and say so */
        unreadable = text;
        return text;
      }
    }
    window.location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var pair = part.split("=");
      if (pair[0]) params[decoded(pair[0])] = decoded(pair[1] || "");
    });
    if (unreadable) {
      this.tell("The link's " + unreadable + " is no game or move this viewer reads.");
      return true;
    }
    if (!("game" in params) && !("move" in params)) return false;
    var wanted = "game" in params ? params.game : String(this.game.no);
    var move = parseInt(params.move, 10);
    move = isNaN(move) ? 0 : move;
    if (/^\d+$/.test(wanted)) {
      this.openNumber(Number(wanted), move, false, true);
      return true;
    }
    this.openKey(wanted, move);
    return true;
  };

  /* A game named by its key: among the games loaded, else in the part whose first key
     comes before it in schedule order (keys r1-t2-s3-o0 sort by their numbers). */
  Viewer.prototype.openKey = function (wanted, move) {
    var self = this;
    var missing = "Game " + wanted + " is not in this viewer: it holds the games listed in its menu.";
    function loaded() { return self.games.find(function (g) { return g.k === wanted; }); }
    var found = loaded();
    if (found) {
      this.openNumber(found.no, move, false, true);
      return;
    }
    var part = this.partOfKey(wanted);
    if (!part) {
      this.tell(missing);
      return;
    }
    this.loadPart(part, function () {
      var now = loaded();
      if (now) self.openNumber(now.no, move, false, true);
      else self.tell(missing);
    });
  };

  Viewer.prototype.partOfKey = function (key) {
    function order(text) {
      var found = /^r(\d+)-t(\d+)-s(\d+)-o(\d+)$/.exec(text || "");
      return found ? found.slice(1).map(Number) : null;
    }
    function before(a, b) {
      for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
      return true;
    }
    var wanted = order(key), keys = this.partKeys || [], part = 0;
    if (!wanted) return 0;
    for (var i = 0; i < keys.length; i++) {
      var first = order(keys[i]);
      if (first && before(first, wanted)) part = i + 1;
    }
    return part;
  };

  Viewer.prototype.tell = function (text) {
    this.el.note.textContent = text;
    this.el.note.hidden = !text;
  };

  Viewer.prototype.toHash = function () {
    try {
      window.history.replaceState(null, "", "#game=" + this.game.no + "&move=" + this.move);
    } catch (error) {
      /* a page opened from some places may refuse; the viewer works without */
    }
  };

  Viewer.prototype.open = function (index, move, remember) {
    if (index !== this.index) {
      this.index = index;
      this.game = this.games[index];
      this.lines = (this.game.a || []).map(function (text) { return text.split(" "); });
      this.positions = this.replay(this.game);
      this.showPart(this.partOf(this.game.no) || 1);
      this.el.select.value = String(this.game.no);
      this.el.slider.max = String(this.moves());
      this.el.viewer.dataset.game = String(this.game.no);
      this.el.viewer.dataset.moves = String(this.moves());
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
    var last = this.moves();
    this.move = Math.max(0, Math.min(last, isNaN(move) ? 0 : move));
    var el = this.el;
    el.slider.value = String(this.move);
    el.counter.textContent = "move " + this.move + " / " + last;
    el.viewer.dataset.move = String(this.move);
    Array.prototype.forEach.call(el.viewer.querySelectorAll("[data-step]"), function (b) {
      var back = b.dataset.step === "first" || b.dataset.step === "prev";
      b.disabled = back ? this.move === 0 : this.move === last;
    }, this);
    this.highlight();
    this.showNotation();
    this.showSeats();
    if (this.game.e) {
      el.position.hidden = true;
      clear(el.dice);
      el.dice.appendChild(h("p", { className: "error", text: this.game.e }));
    } else {
      el.position.hidden = false;
      this.renderer.render(this.positions[this.move], this.move);
    }
    if (remember) this.toHash();
  };

  /* The seat whose turn move `move + 1` is; -1 once the game is over. */
  Viewer.prototype.nextSeat = function (move) {
    var seats = this.game.z || "";
    return move < seats.length ? Number(seats[move]) : -1;
  };

  Viewer.prototype.seatBot = function (seat) { return this.bots[this.game.s[seat]]; };

  Viewer.prototype.moveItem = function (number, seat, text) {
    var bot = seat >= 0 ? this.seatBot(seat) : null;
    return h("li", { "data-move": String(number) }, [
      h("button", { type: "button", className: "move-line", "data-move": String(number) }, [
        h("span", { className: "move-no", text: String(number) }),
        h("span", { className: "move-seat", style: bot ? "background:" + bot.colour : null,
                    title: bot ? "seat " + seat + ": " + bot.label : null }),
        h("span", { className: "move-text", text: text })
      ])
    ]);
  };

  Viewer.prototype.buildMoveList = function () {
    var list = this.el.list, self = this, notes = this.game.n || [];
    clear(list);
    list.appendChild(this.moveItem(0, -1, "Start position"));
    for (var move = 1; move <= this.moves(); move++) {
      var text = (notes[move - 1] || this.lines[move - 1].join(" ")).replace(LINE_NUMBER, "");
      list.appendChild(self.moveItem(move, self.nextSeat(move - 1), text));
    }
  };

  Viewer.prototype.highlight = function () {
    var list = this.el.list;
    Array.prototype.forEach.call(list.querySelectorAll(".current"), function (node) {
      node.classList.remove("current");
      node.removeAttribute("aria-current");
    });
    var item = list.querySelector('li[data-move="' + this.move + '"]');
    if (!item) return;
    item.classList.add("current");
    item.setAttribute("aria-current", "step");
    var top = item.offsetTop, bottom = top + item.offsetHeight;
    if (top < list.scrollTop || bottom > list.scrollTop + list.clientHeight) {
      list.scrollTop = Math.max(0, top - list.clientHeight / 2);
    }
  };

  Viewer.prototype.showNotation = function () {
    var notes = this.game.n || [], text;
    if (this.move === 0) {
      var first = this.nextSeat(0);
      text = "Start of the game." + (first >= 0 ? " Seat " + first + " (" +
        this.seatBot(first).label + ") plays first." : "");
    } else {
      text = notes[this.move - 1] || "move " + this.move + ": " + this.lines[this.move - 1].join(" ");
    }
    if (this.move === this.moves() && notes.length) text += "\n" + notes[notes.length - 1];
    this.el.notation.textContent = text;
  };

  Viewer.prototype.showResult = function () {
    var game = this.game, self = this;
    var notes = game.n || [];
    var text = notes.length ? notes[notes.length - 1] : "Result: " + game.sc.join("-");
    var failures = (game.st || []).map(function (status, seat) {
      return status === "ok" ? null : "seat " + seat + " (" + self.seatBot(seat).label + "): " + status;
    }).filter(Boolean);
    if (failures.length) text += " — " + failures.join("; ");
    this.el.result.textContent = "Game " + game.no + " · " + text;
  };

  Viewer.prototype.showSeats = function () {
    var panel = this.el.seats, game = this.game, self = this;
    var toMove = this.nextSeat(this.move);
    var position = this.positions[this.move] || {};
    var final = this.move === this.moves();
    clear(panel);
    game.s.forEach(function (botIndex, seat) {
      var bot = self.bots[botIndex];
      var status = (game.st || [])[seat];
      panel.appendChild(h("div", { className: "seat" + (seat === toMove ? " to-move" : ""),
                                   "data-seat": String(seat) }, [
        h("span", { className: "swatch", style: "background:" + bot.colour }),
        h("span", { className: "who", text: "seat " + seat + " · " + bot.label }),
        h("span", { className: "extra", text: self.renderer.seatExtra(seat, position) }),
        final ? h("span", { className: "rank", text: ORDINALS[game.r[seat]] || String(game.r[seat] + 1) }) : null,
        status && status !== "ok" ? h("span", { className: "failed", text: status }) : null,
        seat === toMove ? h("span", { className: "turn", text: "to move" }) : null
      ]));
    });
  };

  function dieFace(value, classes, title) {
    return h("span", { className: "die " + (classes || ""), text: String(value), title: title });
  }

  function values(action) { return action.slice(action.indexOf(":") + 1).split(",").map(Number); }

  /* ---- Seasons of the Sun: the two circles -------------------------------------------- */

  function SeasonsView(viewer) {
    var self = this;
    this.viewer = viewer;
    this.layout = viewer.layout;
    this.svg = viewer.el.position.querySelector("svg.seasons-board");
    this.fields = {};
    Array.prototype.forEach.call(this.svg.querySelectorAll("g.field"), function (g) {
      self.fields[g.dataset.seat + "-" + g.dataset.sector] = g;
    });
    this.scores = [this.svg.querySelector(".score-0"), this.svg.querySelector(".score-1")];
  }

  SeasonsView.prototype.openGame = function () {
    var viewer = this.viewer;
    this.scores.forEach(function (node, seat) {
      node.setAttribute("fill", viewer.seatBot(seat).colour);
    });
  };

  SeasonsView.prototype.seatExtra = function (seat) {
    return seat === 0 ? "outer circle" : "inner circle";
  };

  /* What move `move` did: its dice, re-rolled slots and the sector it placed on. */
  SeasonsView.prototype.turn = function (move) {
    var actions = move > 0 ? this.viewer.lines[move - 1] : [];
    var turn = { rolls: [], rerolled: [], sector: -1,
                 seat: move > 0 ? this.viewer.nextSeat(move - 1) : -1 };
    actions.forEach(function (action) {
      if (action.indexOf("dice:") === 0) turn.rolls.push(values(action));
      else if (action.indexOf("reroll:") === 0) turn.rerolled = values(action);
      else if (action.indexOf("place:") === 0) turn.placed = action.slice(6);
    });
    if (turn.placed) turn.sector = this.layout.ids.indexOf(turn.placed);
    return turn;
  };

  SeasonsView.prototype.render = function (position, move) {
    var viewer = this.viewer, self = this, turn = this.turn(move);
    [0, 1].forEach(function (seat) {
      var bot = viewer.seatBot(seat);
      for (var i = 0; i < self.layout.ids.length; i++) {
        var g = self.fields[seat + "-" + i];
        var value = position[(seat === 0 ? "a" : "b") + i] || 0;
        var winner = position["w" + i];
        var state = !value ? "empty" : winner === seat ? "won" : winner === 1 - seat ? "lost" : "filled";
        var placed = i === turn.sector && seat === turn.seat;
        g.setAttribute("class", "field " + state + (placed ? " placed" : ""));
        g.querySelector("path").style.fill = state === "won" ? bot.colour : "";
        var label = g.querySelector("text");
        label.textContent = value ? String(value) : "";
        label.style.fill = state === "won" ? bot.ink : "";
      }
    });
    var score = position.s || [0, 0];
    this.scores.forEach(function (node, seat) { node.textContent = String(score[seat]); });
    this.showDice(turn);
  };

  SeasonsView.prototype.showDice = function (turn) {
    var box = this.viewer.el.dice;
    clear(box);
    if (!turn.rolls.length) {
      box.appendChild(h("span", { className: "extra", text: "No dice rolled yet." }));
      return;
    }
    var bot = this.viewer.seatBot(turn.seat);
    box.appendChild(h("span", { className: "swatch", style: "background:" + bot.colour }));
    box.appendChild(h("span", { className: "label", text: "seat " + turn.seat + " rolled" }));
    var first = turn.rolls[0], last = turn.rolls[turn.rolls.length - 1];
    first.forEach(function (value, slot) {
      var again = turn.rerolled.indexOf(slot) >= 0;
      box.appendChild(dieFace(value, again ? "rerolled-away" : "", again ? "re-rolled" : "kept"));
    });
    if (turn.rolls.length > 1) {
      box.appendChild(h("span", { className: "label", text: "re-rolled → " }));
      last.forEach(function (value, slot) {
        var again = turn.rerolled.indexOf(slot) >= 0;
        box.appendChild(dieFace(value, again ? "rerolled" : "", again ? "new value" : "kept"));
      });
    }
    var total = last.reduce(function (a, b) { return a + b; }, 0);
    var where = turn.sector >= 0 ? " on " + this.layout.sectors[turn.sector] : "";
    box.appendChild(h("span", { className: "total", text: "= " + total + where }));
  };

  /* ---- Sonnentau: pieces over the board drawing -------------------------------------------- */

  function SonnentauView(viewer) {
    this.viewer = viewer;
    this.layout = viewer.layout;
    var svg = viewer.el.position.querySelector("svg");
    this.svg = svg;
    if (svg) {
      svgNamespace = svg.namespaceURI;
      this.defineShine(svg);
      this.layer = s("g", { id: "piece-layer" });
      svg.appendChild(this.layer);
    }
    var button = document.getElementById("board-zoom"), self = this;
    if (button && svg) {
      button.addEventListener("click", function () {
        self.zoom(button, button.getAttribute("aria-pressed") !== "true");
      });
    }
  }

  /* Enlarges the board in a box of its own (or fits it again), the last move in view. */
  SonnentauView.prototype.zoom = function (button, on) {
    var box = this.svg.parentNode;
    box.classList.toggle("zoomed", on);
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.textContent = on ? "Fit the board" : "Enlarge the board";
    if (!on) return;
    var target = this.layer.querySelector("circle[stroke-dasharray]") ||
      this.layer.querySelector("circle[fill=none]");
    var frame = box.getBoundingClientRect();
    var spot = target ? target.getBoundingClientRect() : this.svg.getBoundingClientRect();
    box.scrollLeft += (spot.left + spot.right) / 2 - (frame.left + frame.right) / 2;
    box.scrollTop += (spot.top + spot.bottom) / 2 - (frame.top + frame.bottom) / 2;
  };

  /* A white highlight laid over each piece, so that any bot colour looks like a ball. */
  SonnentauView.prototype.defineShine = function (svg) {
    var defs = svg.querySelector("defs") || svg.insertBefore(s("defs", {}), svg.firstChild);
    defs.appendChild(s("radialGradient", { id: "piece-shine", cx: "35%", cy: "30%", r: "70%" }, [
      s("stop", { offset: "0%", "stop-color": "#ffffff", "stop-opacity": "0.85" }),
      s("stop", { offset: "45%", "stop-color": "#ffffff", "stop-opacity": "0" }),
      s("stop", { offset: "100%", "stop-color": "#000000", "stop-opacity": "0.3" })
    ]));
  };

  SonnentauView.prototype.openGame = function () {};

  SonnentauView.prototype.seatExtra = function (seat, position) {
    var places = this.places(seat, position), L = this.layout.places;
    var home = places.filter(function (p) { return p === L.home; }).length;
    var start = places.filter(function (p) { return p === L.start; }).length;
    return "home " + home + " · start " + start;
  };

  SonnentauView.prototype.places = function (seat, position) {
    var out = [];
    for (var piece = 0; piece < (this.layout.pieces || 5); piece++) out.push(position["" + seat + piece]);
    return out;
  };

  SonnentauView.prototype.ball = function (x, y, seat, label, r, ring) {
    var bot = this.viewer.seatBot(seat);
    var g = s("g", { className: "piece", "data-seat": String(seat) });
    if (ring) {
      g.appendChild(s("circle", { cx: x, cy: y, r: r * 1.55, fill: "none", stroke: "#111827",
                                  "stroke-width": 2.5, "stroke-opacity": 0.8 }));
    }
    g.appendChild(s("circle", { cx: x + r * 0.18, cy: y + r * 0.18, r: r, fill: "#000",
                                "fill-opacity": 0.25 }));
    g.appendChild(s("circle", { className: "ball", cx: x, cy: y, r: r, fill: bot.colour,
                                stroke: "#1f2937", "stroke-width": 1.2 }));
    g.appendChild(s("circle", { cx: x, cy: y, r: r, fill: "url(#piece-shine)" }));
    if (label !== "") {
      g.appendChild(s("text", { x: x, y: y + r * 0.38, "text-anchor": "middle",
                                "font-size": (r * 1.05).toFixed(1), "font-weight": "bold",
                                fill: bot.ink, text: label }));
    }
    g.appendChild(s("title", { text: "seat " + seat + " · " + bot.label + (label !== "" ? " · piece " + label : "") }));
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

  /* The dice of move `move` (a roll): played dice in full, forfeited ones faded. */
  SonnentauView.prototype.showDice = function (move) {
    var box = this.viewer.el.dice;
    var actions = move > 0 ? this.viewer.lines[move - 1] : [];
    clear(box);
    if (!actions.length || actions[0].indexOf("dice:") !== 0) {
      box.appendChild(h("span", { className: "extra", text: "No dice rolled yet." }));
      return;
    }
    var used = {};
    actions.forEach(function (action) {
      var played = /^(?:move|enter):d(\d)/.exec(action);
      if (played) used[played[1]] = true;
    });
    var seat = this.viewer.nextSeat(move - 1), bot = this.viewer.seatBot(seat);
    box.appendChild(h("span", { className: "swatch", style: "background:" + bot.colour }));
    box.appendChild(h("span", { className: "label", text: "seat " + seat + " rolled" }));
    values(actions[0]).forEach(function (value, slot) {
      box.appendChild(dieFace(value, used[slot] ? "" : "unused", used[slot] ? "played" : "not played"));
    });
  };

  /* ---- start ------------------------------------------------------------------------------- */

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);
    var source = document.getElementById("report-data");
    var data = JSON.parse(source.textContent);
    /* counted before the viewer adds the script of a part of its games */
    var expected = Number(root.getAttribute("data-scripts"));
    var scripts = document.scripts.length;
    if (document.getElementById("game-viewer") && (data.games || []).length) {
      new Viewer(data).start();
    }
    root.setAttribute("data-report-ready", scripts === expected ? "ok" : "unexpected-script");
  }

  try {
    init();
  } catch (error) {
    root.setAttribute("data-report-ready", "error");
    root.setAttribute("data-report-error", String(error && error.message || error));
  }
})();
