// Send examples (FCM HTTP v1 request bodies) and fault-rule templates. Each is a function of what
// is selected: the device's token, its first topic, the project.

const TOKEN_PLACEHOLDER = 'REGISTRATION_TOKEN';

export const sendExamples = [
  {
    id: 'notification',
    label: 'Notification to the selected device',
    body: ({ token }) => ({
      message: {
        token: token ?? TOKEN_PLACEHOLDER,
        notification: { title: 'Hello from fcm-emu', body: 'Sent from the dashboard' },
        data: { screen: 'inbox' },
        apns: { payload: { aps: { badge: 1, sound: 'default' } } },
      },
    }),
  },
  {
    id: 'data',
    label: 'Data message (high priority)',
    body: ({ token }) => ({
      message: {
        token: token ?? TOKEN_PLACEHOLDER,
        data: { orderId: '1234', status: 'shipped' },
        android: { priority: 'high' },
        apns: { headers: { 'apns-priority': '5' }, payload: { aps: { 'content-available': 1 } } },
      },
    }),
  },
  {
    id: 'collapse',
    label: 'Collapse key and TTL',
    body: ({ token }) => ({
      message: {
        token: token ?? TOKEN_PLACEHOLDER,
        notification: { title: 'Score update', body: '2 – 1' },
        android: { collapse_key: 'score', ttl: '600s' },
        apns: { headers: { 'apns-collapse-id': 'score', 'apns-expiration': '0' } },
        webpush: { headers: { TTL: '600', Topic: 'score' } },
      },
    }),
  },
  {
    id: 'topic',
    label: 'Topic',
    body: ({ topic }) => ({
      message: {
        topic: topic ?? 'news',
        notification: { title: 'Breaking', body: 'Something happened' },
      },
    }),
  },
  {
    id: 'condition',
    label: 'Condition',
    body: ({ topic }) => ({
      message: {
        condition: `'${topic ?? 'news'}' in topics || 'weather' in topics`,
        data: { kind: 'digest' },
      },
    }),
  },
  {
    id: 'validate',
    label: 'Validate only (dry run)',
    body: ({ token }) => ({
      validate_only: true,
      message: { token: token ?? TOKEN_PLACEHOLDER, notification: { title: 'Dry run' } },
    }),
  },
];

export const faultTemplates = [
  {
    id: 'unavailable',
    label: '503 with Retry-After (next 3 sends)',
    rule: ({ project }) => ({
      match: { api: 'v1', route: 'messages:send', project, count: 3 },
      action: { status: 503, retryAfter: '10s' },
    }),
  },
  {
    id: 'unregistered',
    label: 'UNREGISTERED for the selected device',
    rule: ({ device }) => ({
      match: { device: device ?? 'DEVICE_ID' },
      action: { error: 'UNREGISTERED' },
    }),
  },
  {
    id: 'latency',
    label: 'Latency 2 s on v1 sends',
    rule: ({ project }) => ({
      match: { api: 'v1', project },
      action: { latency: '2s' },
    }),
  },
  {
    id: 'quota',
    label: 'QUOTA_EXCEEDED every 2nd send',
    rule: ({ project }) => ({
      match: { api: 'v1', route: 'messages:send', project, every: 2 },
      action: { error: 'QUOTA_EXCEEDED', retryAfter: 30 },
    }),
  },
  {
    id: 'rst-stream',
    label: 'Reset one HTTP/2 stream (REFUSED_STREAM)',
    rule: ({ project }) => ({
      match: { api: 'v1', route: 'messages:send', project, count: 1 },
      action: { rstStream: 'REFUSED_STREAM' },
    }),
  },
  {
    id: 'hold',
    label: 'Hold sends to the selected device',
    rule: ({ device }) => ({
      match: { device: device ?? 'DEVICE_ID' },
      action: { hold: true },
    }),
  },
];

export const eventKinds = [
  'projectCreated', 'projectDeleted', 'deviceCreated', 'deviceDeleted', 'stateChanged', 'tokenRefreshed', 'tokenInvalidated',
  'subscribed', 'unsubscribed', 'groupCreated', 'groupChanged', 'groupDeleted', 'accepted', 'stored', 'collapsed', 'evicted',
  'expired', 'delivered', 'discarded', 'deletedMessagesSignalled', 'clockAdvanced', 'faultInjected', 'upstream', 'receiptQueued',
  'ccsAcked', 'ccsExpired', 'ccsDropped', 'proxyConnect', 'refused', 'accessTokenGranted', 'accessTokensRevoked', 'inboxTrimmed',
];

export const states = ['foreground', 'background', 'doze', 'offline', 'uninstalled'];
