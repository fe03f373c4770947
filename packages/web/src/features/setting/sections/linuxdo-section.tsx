import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'LinuxDOOAuthEnabled', kind: 'switch' },
  { key: 'LinuxDOClientId', kind: 'text' },
  { key: 'LinuxDOClientSecret', kind: 'secret' },
  { key: 'LinuxDOOAuthEndpoint', kind: 'text' },
];

/** System → LinuxDO sign-in; turning it on needs the client id and secret. */
export function LinuxDoSection() {
  return <OptionSectionCard name="linuxdo" fields={FIELDS} />;
}
