import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'OIDCEnabled', kind: 'switch' },
  { key: 'OIDCWellKnown', kind: 'text' },
  { key: 'OIDCClientId', kind: 'text' },
  { key: 'OIDCClientSecret', kind: 'secret' },
  { key: 'OIDCScopes', kind: 'text' },
  { key: 'OIDCUserIdClaim', kind: 'text' },
];

/** System → OpenID Connect sign-in; turning it on needs the discovery URL, client id and secret. */
export function OidcSection() {
  return <OptionSectionCard name="oidc" fields={FIELDS} />;
}
