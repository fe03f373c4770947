import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'DataExportEnabled', kind: 'switch' },
  { key: 'DataExportInterval', kind: 'number', min: 1 },
  { key: 'DataExportDefaultTime', kind: 'select', choices: ['hour', 'day', 'week'] },
];

/** Operation → data dashboard: the usage aggregation job and the dashboard's default granularity. */
export function DashboardSection() {
  return <OptionSectionCard name="dashboard" fields={FIELDS} />;
}
