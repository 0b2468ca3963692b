/** Every provider adapter against its fake: one line per adapter (test/providers/conformance/adapter-conformance.ts). */
import { describeAdapterConformance } from './conformance/adapter-conformance.js';
import { apnsSubject } from './subjects/apns.js';
import { fcmSubject } from './subjects/fcm.js';
import { postmarkSubject } from './subjects/postmark.js';
import { resendSubject } from './subjects/resend.js';
import { telnyxSubject } from './subjects/telnyx.js';
import { twilioSubject } from './subjects/twilio.js';
import { sandboxSubject } from './subjects/sandbox.js';
import { smtpSubject } from './subjects/smtp.js';
import { webPushSubject } from './subjects/webpush.js';

describeAdapterConformance(sandboxSubject);
describeAdapterConformance(resendSubject);
describeAdapterConformance(postmarkSubject);
describeAdapterConformance(smtpSubject);
import { sesSubject } from './subjects/ses.js';
describeAdapterConformance(sesSubject);
describeAdapterConformance(twilioSubject);
describeAdapterConformance(telnyxSubject);
describeAdapterConformance(fcmSubject);
describeAdapterConformance(apnsSubject);
describeAdapterConformance(webPushSubject);
