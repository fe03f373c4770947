import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'Chats', kind: 'json' },
];

/** Operation → chat settings: the chat clients offered from the token list (JSON list). */
export function ChatsSection() {
  return <OptionSectionCard name="chats" fields={FIELDS} />;
}
