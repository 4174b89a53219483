// The Speed table in the browser: draws the server's `state` messages and sends your plays.
// Protocol: speed_table/protocol.py. No build step, no dependencies.
"use strict";

(function () {
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const $ = (sel, root) => (root || document).querySelector(sel);

  const ui = {
    welcome: null, // the server's welcome message
    snap: null, // the last snapshot
    status: "connecting", // connecting, idle, countdown, running, over, closed
    selected: null, // picked hand slot (0-based)
    result: null,
    countdownEnd: 0,
    lastLatency: null,
    latencies: [], // your accepted plays' latencies this visit (page side, for display)
    ws: null,
  };

  // ------------------------------------------------------------------ cards
  function cardEl(token, opts) {
    const el = document.createElement("div");
    el.className = "card";
    if (token === null || token === undefined) {
      el.classList.add("empty");
      return el;
    }
    if (token === "?") {
      el.classList.add("back");
      return el;
    }
    el.dataset.card = token;
    // A second deck's card (Party Speed's two decks) is marked with a prime: 7S' is a 7♠ too.
    const face = token.endsWith("'") ? token.slice(0, -1) : token;
    if (face === "RJ" || face === "BJ") {
      el.classList.add(face === "RJ" ? "red" : "black", "joker");
      el.innerHTML = '<span class="rank">★</span><span class="suit">JK</span>';
      return el;
    }
    const suit = face.slice(-1);
    const rank = face.slice(0, -1);
    el.classList.add(suit === "H" || suit === "D" ? "red" : "black");
    el.innerHTML = `<span class="rank">${rank}</span><span class="suit">${SUITS[suit] || suit}</span>`;
    if (opts && opts.small) el.classList.add("small");
    return el;
  }

  function stackEl(count, label) {
    const el = document.createElement("div");
    el.className = "stack" + (count ? "" : " gone");
    el.innerHTML = `<div class="card back"></div><span class="count">${count}</span>`;
    el.title = `${label}: ${count} card${count === 1 ? "" : "s"}`;
    return el;
  }

  // ------------------------------------------------------------------ drawing
  function mySeat() {
    return ui.welcome && ui.welcome.seat !== null ? ui.welcome.seat : 0;
  }

  function seatBox(seat) {
    // You (or player_0 when watching) sit at the bottom, as in speed_env.render.modes; at a
    // table of three or four the next seat takes the top and the others the boxes made for them.
    if (seat === mySeat()) return $("#seat-bottom");
    return seat <= 1 ? $("#seat-top") : $(`#seat-${seat}`);
  }

  // Pile keys: A/← and L/→ for the two piles of a duel; D and J for a third and fourth pile.
  const PILE_KEYS = ["a", "l", "d", "j"];

  function seatTable(n) {
    // A table of three or four (the welcome's seats): a box for each other seat past the first,
    // a centre pile and a side pile for each seat past the second. Two seats add nothing.
    for (let k = 2; k < n; k++) {
      if ($(`#pile-${k}`)) continue;
      const seat = $("#seat-top").cloneNode(true);
      seat.id = `seat-${k}`;
      $("#table").insertBefore(seat, $("#centre"));
      const pile = $("#pile-1").cloneNode(true);
      pile.id = `pile-${k}`;
      pile.dataset.pile = String(k);
      $(".pile-label", pile).innerHTML = `<kbd>${PILE_KEYS[k].toUpperCase()}</kbd> <span class="size"></span>`;
      pile.addEventListener("click", () => playOn(k));
      const side = $("#side-1").cloneNode(false);
      side.id = `side-${k}`;
      side.title = `side pile beside pile ${k + 1}`;
      $("#centre").append(pile, side);
    }
  }

  function fmtClock(ms) {
    const s = ms / 1000;
    const m = Math.floor(s / 60);
    const rest = (s - 60 * m).toFixed(1).padStart(4, "0");
    return `${m}:${rest}`;
  }

  function draw() {
    const snap = ui.snap;
    document.body.dataset.status = ui.status;
    if (!snap) return;
    const japanese = snap.preset === "japanese";
    document.body.classList.toggle("japanese", japanese);
    $("#clock").textContent = fmtClock(snap.clock_ms);
    let phase = "";
    if (ui.status === "countdown") phase = "get ready";
    else if (snap.phase === "stuck") {
      const left = snap.flip_ms === null ? 0 : Math.max(0, snap.flip_ms - snap.clock_ms) / 1000;
      phase = `stuck: flip in ${left.toFixed(1)} s`;
    } else if (snap.phase === "over") phase = "game over";
    else if (ui.welcome && ui.welcome.mode === "watch" && ui.paused) phase = "paused";
    $("#phase").textContent = phase;
    document.body.dataset.phase = snap.phase;

    snap.centre.forEach((pile, k) => {
      const box = $(`#pile-${k}`);
      const slot = $(".slot-card", box);
      slot.replaceChildren(cardEl(pile.top));
      box.dataset.top = pile.top || "";
      $(".size", box).textContent = `×${pile.size}`;
      $(".flights.top", box).replaceChildren();
      $(".flights.bottom", box).replaceChildren();
    });

    snap.players.forEach((p, seat) => {
      const box = seatBox(seat);
      const mine = ui.welcome && ui.welcome.seat === seat;
      const names = ui.welcome ? ui.welcome.seats : [];
      $(".name", box).textContent = mine ? "You" : names[seat] || p.name;
      const pileWord = japanese ? "stock" : "draw";
      $(".counts", box).textContent = `${pileWord} ${p.draw_pile} · played ${p.played} · bounced ${p.bounced}`;
      const hand = $(".hand", box);
      hand.replaceChildren();
      p.hand.forEach((token, i) => {
        const wrap = document.createElement("div");
        wrap.className = "hand-slot";
        wrap.dataset.slot = String(i);
        const el = cardEl(token);
        wrap.appendChild(el);
        if (mine) {
          const key = document.createElement("kbd");
          key.textContent = String(i + 1);
          wrap.appendChild(key);
          if (ui.selected === i) wrap.classList.add("selected");
          wrap.addEventListener("click", () => pick(i));
        }
        hand.appendChild(wrap);
      });
      box.dataset.handSize = String(p.hand.filter((c) => c !== null).length);
      $(".draw", box).replaceChildren(stackEl(p.draw_pile, japanese ? "stock" : "draw pile"));
      if (!japanese) $(`#side-${seat}`).replaceChildren(stackEl(p.side_pile, "side pile"));
      if (p.in_flight) {
        const pile = p.in_flight.pile === null ? 0 : p.in_flight.pile;
        const where = seatBox(seat).id === "seat-bottom" ? "bottom" : "top";
        const cards = p.in_flight.cards || [p.in_flight.card];
        const f = document.createElement("div");
        f.className = `flight ${mine ? "mine" : "theirs"} from-${where}`;
        cards.forEach((c) => f.appendChild(cardEl(c, { small: true })));
        $(`#pile-${pile} .flights.${where}`).appendChild(f);
      }
    });
    if (japanese) {
      $("#side-0").replaceChildren();
      $("#side-1").replaceChildren();
    }
  }

  // ------------------------------------------------------------------ overlay
  function showPanel(html) {
    $("#panel").innerHTML = html;
    $("#overlay").hidden = false;
  }

  function hidePanel() {
    $("#overlay").hidden = true;
  }

  function esc(text) {
    return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  }

  function startPanel() {
    const w = ui.welcome;
    showPanel(`
      <h1>Speed</h1>
      <p>You against <b>${w.seats.slice(1).map(esc).join("</b>, <b>")}</b> · rules <b>${esc(w.rules)}</b> · tick ${w.tick_ms} ms</p>
      <p class="small" id="thinking-note">${w.seats.length > 2 ? "The bots'" : "The bot's"} ${esc(thinkingText(w.think))}.</p>
      <p class="small">Get rid of all your cards first: play a card one rank above or below a centre pile's top
        (K–A–2 wrap). Your reaction time is measured on every play.</p>
      ${w.recording ? `<p class="small" id="recording-note"><b>Recording:</b> every game you finish is saved on this
        machine as a play record (the table's view, your plays and reaction times; no name unless you gave one
        with <code>--name</code>). Nothing leaves the machine. To stop, stop the server and restart it without
        <code>--record</code>; a game you leave unfinished is not saved.</p>` : ""}
      <p><button type="button" id="start-btn" class="primary">Start <kbd>Space</kbd></button></p>`);
    $("#start-btn").addEventListener("click", () => start(false));
  }

  // How the bots' thinking is charged (the welcome's `think`: speed play/watch --think MODE).
  const THINKING = {
    off: "thinking off: only what a bot declares",
    declared: "thinking declared: what each bot declares",
    calibrated: "thinking calibrated: a constant per bot, timed before play",
    measured: "thinking measured: each decision's own time (not repeatable)",
  };
  function thinkingText(mode) {
    return THINKING[mode] || `thinking ${mode}`;
  }

  function profileText(p) {
    if (!p || !p.n) return "no timed plays yet";
    const fit = p.fit ? ` · ex-Gaussian μ ${p.fit.mu}, σ ${p.fit.sigma}, τ ${p.fit.tau}, floor ${p.fit.floor} ms` : "";
    return `median <b>${p.median_ms} ms</b> · spread (IQR) ${p.p25_ms}–${p.p75_ms} ms · ${p.n} plays${fit}`;
  }

  function resultPanel(r) {
    const w = ui.welcome;
    const s = r.snapshot;
    const headline = {
      win: "You win!",
      loss: "You lose",
      draw: "Draw",
      none: "Time up: no winner",
    }[r.you] || (r.winner === "draw" ? "Draw" : r.winner ? `${r.seats[Number(r.winner.slice(-1))]} wins` : "Time up: no winner");
    const rows = s.players
      .map((p, k) => `<tr><td>${esc(w.seat === k ? "You" : r.seats[k])}</td><td>${p.played}</td><td>${p.bounced}</td>
        <td>${p.hand.filter((c) => c !== null).length + p.draw_pile}</td></tr>`)
      .join("");
    let reaction = "";
    let buttons = "";
    if (w.mode === "play") {
      const canMirror = r.mirror !== null;
      reaction = `
        <h2>Your reaction time</h2>
        <p>This game: ${profileText(r.game_profile)}</p>
        <p>This visit: ${profileText(r.profile)}</p>`;
      buttons = `
        <button type="button" id="rematch-btn" class="primary">Rematch <kbd>Enter</kbd></button>
        <button type="button" id="mirror-btn" ${canMirror ? "" : "disabled"}
          title="${canMirror ? esc("the bot gets your profile: " + r.mirror) : `needs ${w.min_plays_for_profile} timed plays`}">
          Play a bot as fast as you <kbd>M</kbd></button>`;
    } else {
      buttons = `<button type="button" id="rematch-btn" class="primary">Next game <kbd>Enter</kbd></button>`;
    }
    const replay = r.replay ? `<p class="small">Replay: <code>${esc(r.replay)}</code></p>` : r.replay_error ? `<p class="small">${esc(r.replay_error)}</p>` : "";
    showPanel(`
      <h1 id="result-headline">${headline}</h1>
      <p class="small">${fmtClock(s.clock_ms)} · ${r.seats.map(esc).join(" vs ")}</p>
      <table class="stats"><tr><th></th><th>played</th><th>bounced</th><th>cards left</th></tr>${rows}</table>
      ${reaction}${replay}<p>${buttons}</p>`);
    $("#rematch-btn").addEventListener("click", () => start(false));
    const mirror = $("#mirror-btn");
    if (mirror) mirror.addEventListener("click", () => start(true));
  }

  function countdownTick() {
    if (ui.status !== "countdown") return;
    const left = Math.max(0, ui.countdownEnd - performance.now());
    const n = Math.ceil(left / 1000);
    showPanel(`<div class="countdown">${n > 0 ? n : "Go!"}</div>
      <p>${ui.welcome.seats.map(esc).join(" vs ")}</p>`);
    if (left > 0) setTimeout(countdownTick, 100);
  }

  // ------------------------------------------------------------------ toasts
  let toastTimer = null;
  function toast(text, kind) {
    const el = $("#toast");
    el.textContent = text;
    el.className = `show ${kind || ""}`;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => (el.className = ""), 1800);
  }

  function reactionLine() {
    if (!ui.welcome || ui.welcome.mode !== "play") {
      $("#reaction-line").textContent = "";
      return;
    }
    const xs = ui.latencies.filter((x) => x <= 5000).sort((a, b) => a - b); // as the server: slower is not a reaction
    const mid = xs.length >> 1;
    const med = !xs.length ? null : xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
    const last = ui.lastLatency === null ? "–" : `${Math.round(ui.lastLatency)} ms`;
    $("#reaction-line").textContent = `your last reaction ${last}` + (med === null ? "" : ` · median ${Math.round(med)} ms (${xs.length})`);
  }

  // ------------------------------------------------------------------ input
  function send(msg) {
    if (ui.ws && ui.ws.readyState === WebSocket.OPEN) ui.ws.send(JSON.stringify(msg));
  }

  function start(mirror) {
    if (ui.status === "countdown" || ui.status === "running") return;
    send(mirror ? { type: "start", mirror: true } : { type: "start" });
  }

  function pick(slot) {
    if (!ui.welcome || ui.welcome.seat === null || !ui.snap) return;
    if (slot >= ui.welcome.hand_size) return;
    const hand = ui.snap.players[ui.welcome.seat].hand;
    if (ui.selected !== slot && (slot >= hand.length || hand[slot] === null)) {
      toast(`slot ${slot + 1} is empty`, "warn");
      return;
    }
    ui.selected = ui.selected === slot ? null : slot;
    draw();
  }

  function playOn(pile) {
    if (ui.selected === null) {
      toast("pick a card first (1–5)", "warn");
      return;
    }
    send({ type: "play", slot: ui.selected, pile: pile });
    ui.selected = null;
    draw();
  }

  document.querySelectorAll(".pile").forEach((el) =>
    el.addEventListener("click", () => playOn(Number(el.dataset.pile))));

  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const w = ui.welcome;
    if (!w) return;
    const key = ev.key;
    const lower = key.length === 1 ? key.toLowerCase() : key;
    if (w.mode === "watch") {
      if (key === " ") {
        ev.preventDefault();
        send({ type: "pause", paused: !ui.paused });
      } else if (key === "Enter" && ui.status === "over") start(false);
      return;
    }
    if ((key === " " || key === "Enter") && (ui.status === "idle" || ui.status === "over")) {
      ev.preventDefault();
      start(false);
      return;
    }
    if (lower === "m" && ui.status === "over") {
      start(true);
      return;
    }
    if (/^[1-9]$/.test(key)) {
      pick(Number(key) - 1);
      ev.preventDefault();
    } else if (lower === "a" || key === "ArrowLeft") {
      playOn(0);
      ev.preventDefault();
    } else if (lower === "l" || key === "ArrowRight") {
      playOn(1);
      ev.preventDefault();
    } else if (PILE_KEYS.indexOf(lower) >= 2 && PILE_KEYS.indexOf(lower) < w.seats.length) {
      playOn(PILE_KEYS.indexOf(lower));
      ev.preventDefault();
    } else if (key === "Escape") {
      ui.selected = null;
      draw();
    }
  });

  document.querySelectorAll("[data-speed]").forEach((b) =>
    b.addEventListener("click", () => send({ type: "speed", factor: Number(b.dataset.speed) })));
  $("#pause").addEventListener("click", () => send({ type: "pause", paused: !ui.paused }));

  // ------------------------------------------------------------------ messages
  function onMessage(msg) {
    switch (msg.type) {
      case "welcome":
        ui.welcome = msg;
        ui.status = "idle";
        ui.paused = msg.paused;
        seatTable(msg.seats.length);
        $("#matchup").textContent = `${msg.seats.join(" vs ")} · ${msg.rules}`;
        document.body.classList.toggle("watch", msg.mode === "watch");
        $("#watch-controls").hidden = msg.mode !== "watch";
        $("#recording").hidden = !msg.recording;
        $("#thinking").textContent = thinkingText(msg.think);
        $("#help").hidden = msg.mode === "watch";
        document.body.dataset.status = "idle";
        if (msg.mode === "watch") start(false);
        else startPanel();
        break;
      case "countdown":
        ui.status = "countdown";
        ui.welcome.seats = msg.seats;
        $("#matchup").textContent = `${msg.seats.join(" vs ")} · ${ui.welcome.rules}`;
        ui.countdownEnd = performance.now() + msg.ms;
        ui.selected = null;
        countdownTick();
        break;
      case "state":
        ui.snap = msg.snapshot;
        ui.paused = msg.paused;
        if (msg.status === "running" && ui.status === "countdown") hidePanel();
        if (msg.status !== "over") ui.status = msg.status;
        document.querySelectorAll("[data-speed]").forEach((b) => b.classList.toggle("on", Number(b.dataset.speed) === msg.speed));
        $("#pause").textContent = msg.paused ? "Resume" : "Pause";
        draw();
        break;
      case "played":
        ui.lastLatency = msg.latency_ms;
        if (msg.latency_ms !== null) ui.latencies.push(msg.latency_ms);
        reactionLine();
        break;
      case "result":
        ui.status = "over";
        ui.result = msg;
        ui.snap = msg.snapshot;
        ui.selected = null;
        draw();
        resultPanel(msg);
        break;
      case "error":
        toast(msg.message, "error");
        break;
      case "fatal":
        ui.status = "closed";
        showPanel(`<h1>${esc(msg.title || "Cannot play")}</h1><p>${esc(msg.message)}</p>`);
        break;
      case "full":
        ui.status = "closed";
        showPanel(`<h1 id="full-headline">Table full</h1><p>${esc(msg.message)}</p>
          <p><button type="button" id="retry-btn" class="primary">Try again</button></p>`);
        $("#retry-btn").addEventListener("click", () => location.reload());
        break;
      default:
        break;
    }
    document.body.dataset.status = ui.status;
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws`);
    ui.ws = ws;
    ws.addEventListener("message", (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch (e) {
        return;
      }
      onMessage(msg);
    });
    ws.addEventListener("close", () => {
      if (ui.status === "closed") return;
      ui.status = "closed";
      document.body.dataset.status = "closed";
      showPanel("<h1>Disconnected</h1><p>The server has gone away. Start it again and reload this page.</p>");
    });
  }

  connect();
})();
