import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import i18n, { normaliseLanguage } from '../i18n';

/**
 * dayjs as the screens that show or pick dates use it, in the console's language (antd's date
 * pickers read dayjs's global locale). Only those screens load dayjs: the shell and the sign-in
 * page do not (docs/performance.md#console-bundle).
 */
function follow(language: string | undefined): void {
  dayjs.locale(normaliseLanguage(language) === 'zh' ? 'zh-cn' : 'en');
}

follow(i18n.language);
i18n.on('languageChanged', follow);

export default dayjs;
export type { Dayjs } from 'dayjs';
