/** Every provider kind's callback verifier: one line per kind (test/providers/conformance/callback-conformance.ts). */
import { describeCallbackVerifierConformance } from './conformance/callback-conformance.js';
import { postmarkCallbackSubject } from './subjects/postmark.js';
import { resendCallbackSubject } from './subjects/resend.js';
import { telnyxCallbackSubject } from './subjects/telnyx.js';
import { twilioCallbackSubject } from './subjects/twilio.js';
import { sandboxCallbackSubject } from './subjects/sandbox.js';
import { sesCallbackSubject } from './subjects/ses.js';

describeCallbackVerifierConformance(sandboxCallbackSubject);
describeCallbackVerifierConformance(resendCallbackSubject);
describeCallbackVerifierConformance(postmarkCallbackSubject);
describeCallbackVerifierConformance(sesCallbackSubject);
describeCallbackVerifierConformance(twilioCallbackSubject);
describeCallbackVerifierConformance(telnyxCallbackSubject);
