// While a round runs, the page's worked answers are out of sight: every element the round's `hide`
// selectors match (a design's fold; chapter 7's sections 7.2 to 7.5 and its problems' answers) is marked,
// and so is each table-of-contents entry that links into one. practice.css takes what is marked out of the
// layout while <body> has RUNNING_CLASS (display: none), so neither find-in-page nor a link reaches it.
// Only marked elements hide: after instant navigation to another page nothing there is marked.

export const RUNNING_CLASS = "mock-round-running";
export const HIDDEN_CLASS = "mock-round-hidden";

// The page's worked answers for `round`, outside the round's own box.
export function answerContainers(round, doc) {
  const found = new Set();
  for (const selector of round.hide || []) {
    for (const node of doc.querySelectorAll(selector)) if (!node.closest(".mock-round")) found.add(node);
  }
  return [...found];
}

export function hideAnswers(round, doc) {
  const containers = answerContainers(round, doc);
  for (const node of containers) node.classList.add(HIDDEN_CLASS);
  // Material's instant navigation writes each link in full (https://host/page/#id): a link into this
  // page is one whose path is the page's own.
  for (const link of doc.querySelectorAll(".md-nav a[href*='#']")) {
    const url = new URL(link.href, doc.location.href);
    if (url.pathname !== doc.location.pathname || !url.hash) continue;
    const target = doc.getElementById(decodeURIComponent(url.hash.slice(1)));
    if (target && containers.some((c) => c.contains(target))) (link.closest("li") || link).classList.add(HIDDEN_CLASS);
  }
  doc.body.classList.add(RUNNING_CLASS);
}

export function showAnswers(doc) {
  doc.body.classList.remove(RUNNING_CLASS);
  for (const node of doc.querySelectorAll(`.${HIDDEN_CLASS}`)) node.classList.remove(HIDDEN_CLASS);
}
