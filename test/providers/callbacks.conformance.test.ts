/** Every provider kind's callback verifier: one line per kind (test/providers/conformance/callback-conformance.ts). */
import { describeCallbackVerifierConformance } from './conformance/callback-conformance.js';
import { telnyxCallbackSubject } from './subjects/telnyx.js';
import { twilioCallbackSubject } from './subjects/twilio.js';
import { sandboxCallbackSubject } from './subjects/sandbox.js';

describeCallbackVerifierConformance(sandboxCallbackSubject);
describeCallbackVerifierConformance(twilioCallbackSubject);
describeCallbackVerifierConformance(telnyxCallbackSubject);
