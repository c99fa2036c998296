import { UNSUBSCRIBE_PATH } from '../../../mail';

const token = {
  name: 'token',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: "From the mail's List-Unsubscribe header: names the address and the kind of mail, signed by the gateway.",
};
const page = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });

/** A mail's one-click unsubscribe (docs/people.md, "Unsubscribe"): what a mail client POSTs, and the page a browser shows. */
export const mailPaths = {
  [`${UNSUBSCRIBE_PATH}/{token}`]: {
    get: {
      summary: "A mail's unsubscribe page",
      description: 'German, or English by Accept-Language: what the link unsubscribes from, and a button that makes the POST. No script.',
      security: [],
      parameters: [token],
      responses: {
        '200': page('The page with its button.'),
        '404': page('A link the gateway did not make.'),
        '429': page('Too many requests from this address (Retry-After).'),
      },
    },
    post: {
      summary: 'Unsubscribe with one click (RFC 8058)',
      description:
        "No login: the link is the credential. The address stops receiving the link's kind of mail (a digest's link: every kind); notificationPreferences shows it.",
      security: [],
      parameters: [token],
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: {
              type: 'object',
              required: ['List-Unsubscribe'],
              properties: { 'List-Unsubscribe': { const: 'One-Click' } },
            },
          },
        },
      },
      responses: {
        '200': page('Unsubscribed.'),
        '400': page('The body is not `List-Unsubscribe=One-Click`.'),
        '404': page('A link the gateway did not make.'),
        '429': page('Too many requests from this address (Retry-After).'),
      },
    },
  },
};
