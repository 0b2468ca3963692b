/** Every provider adapter against its fake: one line per adapter (test/providers/conformance/adapter-conformance.ts). */
import { describeAdapterConformance } from './conformance/adapter-conformance.js';
import { telnyxSubject } from './subjects/telnyx.js';
import { twilioSubject } from './subjects/twilio.js';
import { sandboxSubject } from './subjects/sandbox.js';

describeAdapterConformance(sandboxSubject);
describeAdapterConformance(twilioSubject);
describeAdapterConformance(telnyxSubject);
