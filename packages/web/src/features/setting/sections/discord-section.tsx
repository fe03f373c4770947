import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'DiscordOAuthEnabled', kind: 'switch' },
  { key: 'DiscordClientId', kind: 'text' },
  { key: 'DiscordClientSecret', kind: 'secret' },
  { key: 'DiscordOAuthEndpoint', kind: 'text' },
];

/** System → Discord sign-in; turning it on needs the application's client id and secret. */
export function DiscordSection() {
  return <OptionSectionCard name="discord" fields={FIELDS} />;
}
