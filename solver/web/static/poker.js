// The dice-poker tab: the form's values to /api/poker, its answer as a table. German where the browser asks for it.
"use strict";

const DE = {
  title: "Würfelpoker: das Duell", back: "Kniffel-Ratgeber", hands: "Deine Würfel und die zu schlagende Hand",
  dice: "Deine Würfel", hand: "Zu schlagende Hand (leer: du beginnst)", roll: "Wurf", rolls: "Würfe, die du hast",
  max_reroll: "Würfel je Nachwurf", ties: "Gleichstand", match: "der zweite Spieler würfelt nicht öfter als der erste",
  ask: "Raten", option: "Zug", pwin: "P(Sieg)", footer: "Genau: jeder Nachwurf jedes Würfels gezählt; Gleichstand zählt halb.",
  stop: "aufhören (alle behalten)", keep: (k, n) => `${k} behalten, ${n} neu würfeln`, all: (n) => `alle ${n} neu würfeln`,
  start: "Siegchance vom Beginn der Runde an: ", best: "Am besten: ",
};
const EN = {
  stop: "stop (keep all)", keep: (k, n) => `keep ${k}, reroll ${n}`, all: (n) => `reroll all ${n}`,
  start: "Chance to win from the start of the turn: ", best: "Best: ",
};
const german = (navigator.language || "").toLowerCase().startsWith("de");
const words = german ? DE : EN;

function percent(p) {
  return (100 * p).toFixed(2).replace(".", german ? "," : ".") + " %";
}

function optionText(o) {
  if (o.reroll === 0) return words.stop;
  if (o.keep.length === 0) return words.all(o.reroll);
  return words.keep(o.keep.join(" "), o.reroll);
}

async function ask(event) {
  if (event) event.preventDefault();
  const params = new URLSearchParams();
  for (const id of ["dice", "hand", "roll", "max_reroll", "ties"]) {
    const value = document.getElementById(id).value.replace(/[^0-9a-z]/g, "");
    if (value) params.set(id, value);
  }
  if (document.getElementById("hand").value.trim()) params.set("rolls", document.getElementById("rolls").value);
  params.set("match", document.getElementById("match").checked ? "1" : "0");
  const error = document.getElementById("error");
  const table = document.getElementById("options");
  const response = await fetch("/api/poker?" + params.toString());
  const answer = await response.json();
  error.textContent = response.ok ? "" : answer.error;
  if (!response.ok) return;
  document.getElementById("start").textContent = words.start + percent(answer.start);
  const options = answer.options;
  document.getElementById("best").textContent = options.length ? words.best + optionText(options[0]) : "";
  const body = table.querySelector("tbody");
  body.replaceChildren(...options.map((o, i) => {
    const row = document.createElement("tr");
    for (const [text, cls] of [[String(i + 1), ""], [optionText(o), ""], [percent(o.p_win), "num"]]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      if (cls) cell.className = cls;
      row.append(cell);
    }
    return row;
  }));
  table.hidden = options.length === 0;
}

document.addEventListener("DOMContentLoaded", () => {
  if (german) {
    document.documentElement.lang = "de";
    for (const el of document.querySelectorAll("[data-text]")) {
      if (DE[el.dataset.text]) el.textContent = DE[el.dataset.text];
    }
  }
  document.getElementById("poker-form").addEventListener("submit", ask);
  ask();
});
