import { useTranslation } from 'react-i18next';
import { modal } from '../../../lib/feedback';
import { OptionSectionCard, type FieldDef } from './option-section';
import type { OptionSectionApi } from './use-option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'PasswordLoginEnabled', kind: 'switch' },
  { key: 'PasswordRegisterEnabled', kind: 'switch' },
  { key: 'RegisterEnabled', kind: 'switch' },
  { key: 'TwoFactorRequiredForAdmins', kind: 'switch' },
  { key: 'EmailVerificationEnabled', kind: 'switch' },
];

/** System → sign-in and registration switches; turning password sign-in off asks first (spec §4). */
export function LoginSection() {
  const { t } = useTranslation('setting');
  const confirm = (api: OptionSectionApi) =>
    api.value('PasswordLoginEnabled') === false && api.options.PasswordLoginEnabled !== 'false'
      ? new Promise<boolean>((resolve) => {
          modal().confirm({
            title: t('section.passwordLoginOffTitle'),
            content: t('section.passwordLoginOff'),
            onOk: () => resolve(true),
            onCancel: () => resolve(false),
          });
        })
      : Promise.resolve(true);
  return <OptionSectionCard name="login" fields={FIELDS} confirm={confirm} />;
}
