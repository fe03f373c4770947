import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'TelegramOAuthEnabled', kind: 'switch' },
  { key: 'TelegramBotName', kind: 'text' },
  { key: 'TelegramBotToken', kind: 'secret' },
];

/** System → Telegram sign-in (login widget); needs the bot name and token. */
export function TelegramSection() {
  return <OptionSectionCard name="telegram" fields={FIELDS} />;
}
