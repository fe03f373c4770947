import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'GitHubOAuthEnabled', kind: 'switch' },
  { key: 'GitHubClientId', kind: 'text' },
  { key: 'GitHubClientSecret', kind: 'secret' },
  { key: 'GitHubOAuthEndpoint', kind: 'text' },
  { key: 'GitHubApiEndpoint', kind: 'text' },
];

/** System → GitHub sign-in; turning it on needs the client id and secret (saved first). */
export function GitHubSection() {
  return <OptionSectionCard name="github" fields={FIELDS} />;
}
