import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'ChannelDisableThreshold', kind: 'number', min: 0, step: 0.5 },
  { key: 'QuotaRemindThreshold', kind: 'number', min: 0 },
  { key: 'AutomaticDisableChannelEnabled', kind: 'switch' },
  { key: 'AutomaticEnableChannelEnabled', kind: 'switch' },
  { key: 'MetricsToken', kind: 'secret' },
];

/** Operation → monitoring: automatic channel disabling and re-enabling, quota reminders, metrics. */
export function MonitoringSection() {
  return <OptionSectionCard name="monitoring" fields={FIELDS} />;
}
