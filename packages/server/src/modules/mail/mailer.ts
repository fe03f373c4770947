import nodemailer from 'nodemailer';
import { AppError } from '../../http/errors.js';
import type { OptionsService } from '../options/options.service.js';

/**
 * Sends mail through the SMTP server set in the options (SMTPServer, SMTPPort, SMTPAccount,
 * SMTPToken, SMTPFrom, SMTPSSLEnabled). Implicit TLS on port 465 or with SMTPSSLEnabled, as the
 * reference; otherwise plain SMTP upgraded with STARTTLS when the server offers it.
 */
export class Mailer {
  constructor(private readonly options: OptionsService) {}

  get configured(): boolean {
    return this.options.str('SMTPServer').trim() !== '';
  }

  async send(to: string, subject: string, html: string): Promise<void> {
    const o = this.options;
    if (!this.configured) throw new AppError('MAIL_NOT_CONFIGURED');
    const port = o.num('SMTPPort') || 587;
    const account = o.str('SMTPAccount');
    const transport = nodemailer.createTransport({
      host: o.str('SMTPServer').trim(),
      port,
      secure: port === 465 || o.bool('SMTPSSLEnabled'),
      auth: account ? { user: account, pass: o.str('SMTPToken') } : undefined,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
    const from = o.str('SMTPFrom') || account;
    try {
      await transport.sendMail({ from: `${o.str('SystemName')} <${from}>`, to, subject, html, text: html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim() });
    } catch (err) {
      throw new AppError('MAIL_SEND_FAILED', 200, (err as Error).message);
    } finally {
      transport.close();
    }
  }
}
