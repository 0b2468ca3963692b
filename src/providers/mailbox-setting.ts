/**
 * The e-mail kinds' sender and reply-to settings: a mailbox (`address` or `Name <address>`), its
 * length bounded as an address is (RFC 5321: 320 characters at most). The schema checks only the
 * length; each kind parses the mailbox at load (`parseMailbox`) to name what is wrong.
 */
import { Type, type TString } from '@sinclair/typebox';

/** A mailbox setting, described by the kind (what the provider requires of the sender). */
export function mailboxSetting(description: string): TString {
  return Type.String({ minLength: 3, maxLength: 320, description });
}
