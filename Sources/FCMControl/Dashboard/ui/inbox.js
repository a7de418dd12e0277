// A device's inbox as its platform would show it: an Android notification, an iOS alert with its
// aps fields, a web notification; data-only messages as what the app's callback received. The raw
// payload sits beside each one.
import { h, clockTime, short, pretty } from './dom.js';

export function renderDelivery(delivery, device) {
  const payload = delivery.payload ?? {};
  const view = delivery.kind === 'deletedMessages'
    ? h('div', { class: 'system' }, h('strong', {}, 'onDeletedMessages()'),
        h('p', {}, 'Too many messages were stored for this device; the app should sync with its server.'))
    : (renderers[device.platform] ?? renderAndroid)(payload, delivery, device);
  return h('article', {
    class: `delivery ${delivery.handling ?? ''}`,
    dataset: { testid: 'delivery', messageId: delivery.messageId ?? '', kind: delivery.kind ?? '', handling: delivery.handling ?? '' },
    'aria-label': `Delivery ${delivery.messageId ?? ''}`,
  },
  h('div', { class: 'meta' },
    h('time', { datetime: delivery.time, title: delivery.time }, clockTime(delivery.time)),
    delivery.handling && h('span', { class: `chip handling-${delivery.handling}`, title: 'How the app got it' }, delivery.handling),
    delivery.callback && h('code', { class: 'callback', title: 'The callback that ran' }, delivery.callback),
    delivery.appState && h('span', { class: 'chip' }, delivery.appState),
    delivery.priority && h('span', { class: 'chip', title: 'Delivered priority (sent as ' + (delivery.originalPriority ?? delivery.priority) + ')' },
      delivery.originalPriority && delivery.originalPriority !== delivery.priority
        ? `${delivery.originalPriority}→${delivery.priority}` : delivery.priority),
    delivery.collapseKey && h('span', { class: 'chip', title: 'Collapse key' }, '⇲ ' + short(delivery.collapseKey, 24)),
    delivery.ttl && h('span', { class: 'chip', title: 'Time to live' }, 'ttl ' + delivery.ttl),
    delivery.api && h('span', { class: 'chip', title: 'Sent through' }, delivery.api),
  ),
  h('div', { class: 'delivery-body' },
    h('div', { class: 'rendered' }, view),
    h('details', { class: 'raw', open: true },
      h('summary', {}, 'Raw payload'),
      h('pre', { tabindex: '0', 'aria-label': 'Raw payload' }, pretty(payload)))));
}

function dataTable(data, caption = 'data') {
  const entries = Object.entries(data ?? {});
  if (!entries.length) return null;
  return h('table', { class: 'kv' },
    h('caption', {}, caption),
    h('tbody', {}, entries.map(([key, value]) =>
      h('tr', {}, h('th', { scope: 'row' }, key), h('td', {}, typeof value === 'string' ? value : JSON.stringify(value))))));
}

function appLine(name, when) {
  return h('div', { class: 'app-line' }, h('span', { class: 'app-icon', 'aria-hidden': 'true' }), h('span', {}, name), h('span', { class: 'when' }, when));
}

function silentNote(delivery) {
  if (delivery.handling === 'tray') return null;
  return h('p', { class: 'note' }, delivery.handling === 'silent' ? 'No notification shown (silent).'
    : `Not shown by the system: the app handled it in ${delivery.callback ?? 'its callback'}.`);
}

/** A notification the system displayed, or (dashed) one the app got to handle itself. */
function shown(delivery) {
  return delivery.handling === 'tray' ? '' : ' not-shown';
}

function renderAndroid(payload, delivery, device) {
  const n = payload.notification;
  return h('div', { class: 'android' },
    n ? h('div', { class: 'android-notification' + shown(delivery), dataset: { testid: 'android-notification' } },
      appLine(device.appId ?? 'app', clockTime(delivery.time).slice(0, 5)),
      n.title && h('p', { class: 'title' }, n.title),
      n.body && h('p', { class: 'body' }, n.body),
      (n.image ?? n.imageUrl) && h('p', { class: 'small' }, '🖼 ' + (n.image ?? n.imageUrl)),
      n.channelId && h('p', { class: 'small' }, 'channel ' + n.channelId))
      : h('p', { class: 'data-only' }, 'Data message'),
    silentNote(delivery),
    dataTable(payload.data));
}

const APS_FIELDS = ['badge', 'sound', 'category', 'thread-id', 'content-available', 'mutable-content', 'interruption-level', 'relevance-score', 'target-content-id'];

function renderIOS(payload, delivery, device) {
  const aps = payload.aps ?? {};
  const alert = typeof aps.alert === 'string' ? { body: aps.alert } : aps.alert;
  const custom = Object.fromEntries(Object.entries(payload).filter(([key]) => key !== 'aps' && !key.startsWith('gcm.') && !key.startsWith('google.')));
  const fields = APS_FIELDS.filter((key) => aps[key] !== undefined);
  return h('div', { class: 'ios' },
    alert ? h('div', { class: 'ios-alert' + shown(delivery), dataset: { testid: 'ios-alert' } },
      appLine((device.appId ?? 'app').split('.').pop().toUpperCase(), 'now'),
      alert.title && h('p', { class: 'title' }, alert.title),
      alert.subtitle && h('p', { class: 'subtitle' }, alert.subtitle),
      alert.body && h('p', { class: 'body' }, alert.body),
      alert['loc-key'] && h('p', { class: 'small' }, 'loc-key ' + alert['loc-key']))
      : h('p', { class: 'data-only' }, aps['content-available'] ? 'Background notification (content-available)' : 'Data message'),
    silentNote(delivery),
    fields.length ? h('dl', { class: 'aps' }, fields.map((key) => [h('dt', {}, key), h('dd', {}, JSON.stringify(aps[key]))])) : null,
    dataTable(custom, 'custom keys'));
}

function renderWeb(payload, delivery, device) {
  const n = payload.notification;
  const link = payload.fcmOptions?.link;
  return h('div', { class: 'web' },
    n ? h('div', { class: 'web-notification' + shown(delivery), dataset: { testid: 'web-notification' } },
      appLine(device.appId ?? 'site', 'Chrome'),
      n.title && h('p', { class: 'title' }, n.title),
      n.body && h('p', { class: 'body' }, n.body),
      n.icon && h('p', { class: 'small' }, 'icon ' + n.icon),
      n.image && h('p', { class: 'small' }, 'image ' + n.image),
      link && h('p', { class: 'small' }, 'opens ' + link))
      : h('p', { class: 'data-only' }, 'Data message'),
    silentNote(delivery),
    dataTable(payload.data));
}

const renderers = { android: renderAndroid, ios: renderIOS, web: renderWeb };
