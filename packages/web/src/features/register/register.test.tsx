import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { done, DEFAULT_STATUS, mockApi, ok } from '../../test/mock-api';
import { renderApp } from '../../test/render';

const fill = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

describe('register', () => {
  it('validates, then sends every field with the stored aff code', async () => {
    localStorage.setItem('aff', 'INV42');
    const server = mockApi({ 'POST /api/user/register': () => done });
    const { router } = renderApp('/register');
    await screen.findByLabelText('用户名');
    fill('用户名', 'newbie');
    fill('密码', 'short');
    fill('确认密码', 'short');
    fireEvent.click(screen.getByRole('button', { name: '注册' }));
    expect(await screen.findByText('密码长度不得小于 8 位！')).toBeTruthy();

    fill('密码', 'password123');
    fill('确认密码', 'password124');
    fireEvent.click(screen.getByRole('button', { name: '注册' }));
    expect(await screen.findByText('两次输入的密码不一致！')).toBeTruthy();

    fill('确认密码', 'password123');
    fireEvent.click(screen.getByRole('button', { name: '注册' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(server.find('POST', '/api/user/register')[0].body).toEqual({
      username: 'newbie',
      password: 'password123',
      password2: 'password123',
      email: '',
      verification_code: '',
      aff_code: 'INV42',
    });
  });

  it('asks for e-mail and code when verification is on, with a 30 s resend countdown', async () => {
    const server = mockApi({
      'GET /api/status': () => ok({ ...DEFAULT_STATUS, email_verification: true }),
      'GET /api/verification': () => done,
    });
    renderApp('/register');
    await screen.findByLabelText('邮箱');
    fill('邮箱', 'a@example.com');
    expect(screen.getByLabelText('验证码')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: '获取验证码' }));
    expect(await screen.findByRole('button', { name: '重新发送 (30)' })).toHaveProperty('disabled', true);
    expect(server.find('GET', '/api/verification')[0].query.get('email')).toBe('a@example.com');
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1100));
    });
    expect(screen.getByRole('button', { name: '重新发送 (29)' })).toHaveProperty('disabled', true);
  });
});
