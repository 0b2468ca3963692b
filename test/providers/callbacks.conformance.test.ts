/** Every provider kind's callback verifier: one line per kind (test/providers/conformance/callback-conformance.ts). */
import { describeCallbackVerifierConformance } from './conformance/callback-conformance.js';
import { postmarkCallbackSubject } from './postmark/subject.js';
import { resendCallbackSubject } from './resend/subject.js';
import { telnyxCallbackSubject } from './telnyx/subject.js';
import { twilioCallbackSubject } from './twilio/subject.js';
import { sandboxCallbackSubject } from './sandbox/subject.js';
import { sesCallbackSubject } from './ses/subject.js';

describeCallbackVerifierConformance(sandboxCallbackSubject);
describeCallbackVerifierConformance(resendCallbackSubject);
describeCallbackVerifierConformance(postmarkCallbackSubject);
describeCallbackVerifierConformance(sesCallbackSubject);
describeCallbackVerifierConformance(twilioCallbackSubject);
describeCallbackVerifierConformance(telnyxCallbackSubject);
