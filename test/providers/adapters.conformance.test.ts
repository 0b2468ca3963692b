/** Every provider adapter against its fake: one line per adapter (test/providers/conformance/adapter-conformance.ts). */
import { describeAdapterConformance } from './conformance/adapter-conformance.js';
import { apnsSubject } from './apns/subject.js';
import { fcmSubject } from './fcm/subject.js';
import { postmarkSubject } from './postmark/subject.js';
import { resendSubject } from './resend/subject.js';
import { telnyxSubject } from './telnyx/subject.js';
import { twilioSubject } from './twilio/subject.js';
import { sandboxSubject } from './sandbox/subject.js';
import { smtpSubject } from './smtp/subject.js';
import { webPushSubject } from './webpush/subject.js';

describeAdapterConformance(sandboxSubject);
describeAdapterConformance(resendSubject);
describeAdapterConformance(postmarkSubject);
describeAdapterConformance(smtpSubject);
import { sesSubject } from './ses/subject.js';
describeAdapterConformance(sesSubject);
describeAdapterConformance(twilioSubject);
describeAdapterConformance(telnyxSubject);
describeAdapterConformance(fcmSubject);
describeAdapterConformance(apnsSubject);
describeAdapterConformance(webPushSubject);
