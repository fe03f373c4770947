import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'WeChatAuthEnabled', kind: 'switch' },
  { key: 'WeChatServerAddress', kind: 'text' },
  { key: 'WeChatServerToken', kind: 'secret' },
  { key: 'WeChatAccountQRCodeImageURL', kind: 'text' },
];

/** System → WeChat sign-in through a WeChat Server deployment. */
export function WeChatSection() {
  return <OptionSectionCard name="wechat" fields={FIELDS} />;
}
