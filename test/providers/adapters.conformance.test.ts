/** Every provider adapter against its fake: one line per adapter (test/providers/conformance/adapter-conformance.ts). */
import { describeAdapterConformance } from './conformance/adapter-conformance.js';
import { apnsSubject } from './subjects/apns.js';
import { fcmSubject } from './subjects/fcm.js';
import { sandboxSubject } from './subjects/sandbox.js';
import { webPushSubject } from './subjects/webpush.js';

describeAdapterConformance(sandboxSubject);
describeAdapterConformance(fcmSubject);
describeAdapterConformance(apnsSubject);
describeAdapterConformance(webPushSubject);
