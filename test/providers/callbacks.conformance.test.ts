/** Every provider kind's callback verifier: one line per kind (test/providers/conformance/callback-conformance.ts). */
import { describeCallbackVerifierConformance } from './conformance/callback-conformance.js';
import { sandboxCallbackSubject } from './subjects/sandbox.js';

describeCallbackVerifierConformance(sandboxCallbackSubject);
