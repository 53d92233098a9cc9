// The reader's rounds and drill results, in this browser's local storage only: nothing is sent
// anywhere. A browser with storage switched off still runs the round; it just forgets on reload.

export function loadJson(key, fallback) {
  try {
    const text = window.localStorage.getItem(key);
    return text === null ? fallback : JSON.parse(text);
  } catch (e) {
    return fallback;
  }
}

export function saveJson(key, value) {
  try {
    window.localStorage.setItem(key, JSON.stringify(value));
    return true;
  } catch (e) {
    return false;
  }
}

export function removeKey(key) {
  try { window.localStorage.removeItem(key); } catch (e) { /* storage off: nothing to remove */ }
}
