import type { OperationDoc } from '../openapi/build-openapi';
import { ChangePasswordRequest, GenerateApiKeyRequest, IssueTokenRequest, LoginRequest } from './dto';

/** The auth routes as OpenAPI operations, with their request DTOs. */
export const AUTH_OPERATIONS: OperationDoc[] = [
  {
    method: 'POST',
    path: '/api/method/login',
    summary: 'Log in: sets the session cookie, returns the CSRF token',
    request: { name: 'LoginRequest', schema: LoginRequest },
    public: true,
  },
  { method: 'POST', path: '/api/method/logout', summary: 'End the session' },
  { method: 'GET', path: '/api/method/platform.auth.whoami', summary: 'The calling principal' },
  {
    method: 'POST',
    path: '/api/method/platform.auth.change_password',
    summary: 'Change the caller’s password',
    request: { name: 'ChangePasswordRequest', schema: ChangePasswordRequest },
  },
  {
    method: 'POST',
    path: '/api/method/platform.auth.generate_api_key',
    summary: 'Create an API key (shown once)',
    request: { name: 'GenerateApiKeyRequest', schema: GenerateApiKeyRequest },
  },
  {
    method: 'POST',
    path: '/api/method/platform.auth.issue_token',
    summary: 'Issue a bearer token for the caller',
    request: { name: 'IssueTokenRequest', schema: IssueTokenRequest },
  },
];
