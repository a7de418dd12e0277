// Small DOM helpers. Every string goes in as a text node or an attribute value, never as markup:
// the page shows payloads chosen by whoever sends messages.

/** h('li', {class: 'x', dataset: {id: '1'}, onclick: fn}, 'text', child, [more]) */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.className = value;
    else if (key in el && typeof value !== 'string') el[key] = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export const $ = (selector, root = document) => root.querySelector(selector);

/** Replaces an element's children. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** 2026-11-22T18:44:02.076Z → 18:44:02.076 (the emulator's clock, UTC). */
export function clockTime(iso) {
  if (!iso) return '';
  const m = /T(\d\d:\d\d:\d\d(?:\.\d+)?)/.exec(iso);
  return m ? m[1] : iso;
}

/** A long id shortened for display; the full value stays in a title. */
export function short(text, keep = 14) {
  if (!text) return '';
  return text.length <= keep + 1 ? text : text.slice(0, keep) + '…';
}

/**
 * A message id as people tell them apart: 0:1795380489975003%9f388bbe9f388bbe → …89975003 (the
 * ids of one project share their start and their end; the full id stays in a title).
 */
export function shortMessageId(id) {
  if (!id) return '';
  const head = id.split('%')[0];
  return head.length > 10 ? '…' + head.slice(-8) : head;
}

export function pretty(value) {
  return JSON.stringify(value, null, 2);
}
