// Who holds connections to the HTTP ports, by address, user agent and port (GET /connections):
// a client pool that leaks shows as a line whose open connections or streams only grow.
import { call } from './api.js';
import { h, fill, short } from './dom.js';

const number = new Intl.NumberFormat('en');

/** @param {object} o {body: the table's tbody, count: the heading's counter} */
export function createConnections(o) {
  let drawn = '';
  async function refresh() {
    let answer;
    try { answer = await call('GET', '/connections'); } catch (error) { answer = { clients: [], error: error.message }; }
    const clients = answer.clients ?? [];
    o.count.textContent = `(${number.format(clients.reduce((n, c) => n + c.open, 0))} open)`;
    const text = JSON.stringify(answer);
    if (text === drawn) return;
    drawn = text;
    fill(o.body, clients.length
      ? clients.map((c) => h('tr', { dataset: { testid: 'connection-client', open: String(c.open), userAgent: c.userAgent } },
        h('td', { class: 'mono' }, c.address),
        h('td', { title: c.userAgent }, c.userAgent ? short(c.userAgent, 40) : h('span', { class: 'sub' }, '(no request yet)')),
        h('td', {}, c.listener),
        h('td', { class: 'num' }, `${number.format(c.open)} / ${number.format(c.opened)}`),
        h('td', { class: 'num' }, c.streamsOpened ? `${number.format(c.streamsOpen)} / ${number.format(c.streamsOpened)}` : '—'),
        h('td', { class: 'num' }, number.format(c.requests))))
      : h('tr', {}, h('td', { colspan: '6', class: 'empty' }, answer.error ?? 'No connection to the HTTP ports yet.')));
  }
  return { refresh };
}
