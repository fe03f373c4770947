import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'TurnstileCheckEnabled', kind: 'switch' },
  { key: 'TurnstileSiteKey', kind: 'text' },
  { key: 'TurnstileSecretKey', kind: 'secret' },
];

/** System → Cloudflare Turnstile human check on sign-in, registration and resets. */
export function TurnstileSection() {
  return <OptionSectionCard name="turnstile" fields={FIELDS} />;
}
