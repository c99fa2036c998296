import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { Tender, TenderStatus } from '../src/tenders';
import { QuoteOption } from '../src/quotes';
import { createTender, createWorld, receivedQuote, type World } from './helpers/fixtures';
import { graphql, startGateway, tokenFor, type Gateway } from './helpers/gateway';
import { PDF, addDocument, sha256 } from './helpers/documents';
import { startS3Server, type S3Server } from './helpers/s3-server';

/**
 * Download links re-check visibility when used (issue 37, point 5): a link handed out while its holder saw the document
 * opens nothing once the holder no longer would (a tender closed, won by another), by the same rule as the lists, for
 * every kind, on both stores. And document content answers If-None-Match as RFC 9110 says: `*`, lists, weak tags.
 */
const LINKS = /* GraphQL */ `
  query ($id: ID!) {
    tender(id: $id) {
      documents {
        id
        kind
        downloadUrl
      }
    }
  }
`;

describe.each(['filesystem', 's3'] as const)('the %s store', (store) => {
  let s3: S3Server | undefined;
  let gateway: Gateway;
  let world: World;
  let broker: string;
  let internal: string;
  let insurerA: string;
  let insurerB: string;

  beforeAll(async () => {
    s3 = store === 's3' ? await startS3Server() : undefined;
    gateway = await startGateway({ dispatch: false, env: { ...s3?.env } });
    world = await createWorld(gateway.em());
    broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    internal = await tokenFor(gateway, Role.INTERNAL);
    insurerA = await tokenFor(gateway, Role.INSURER, { insurerId: world.insurers[0].id });
    insurerB = await tokenFor(gateway, Role.INSURER, { insurerId: world.insurers[1].id });
  });

  afterAll(async () => {
    await gateway?.close();
    await s3?.close();
  });

  /** A tender both insurers quoted on, with a RISK, an OTHER and each insurer's QUOTE document. */
  async function quotedTender() {
    const [a, b] = world.insurers;
    const tender = await createTender(gateway.em(), world, {});
    const requestOf = async (insurer: (typeof world.insurers)[number]) => {
      const option = await receivedQuote(gateway.em(), tender, insurer);
      return (await gateway.em().findOneOrFail(QuoteOption, { id: option.id }, { populate: ['quoteRequest'] })).quoteRequest.id;
    };
    const [requestA, requestB] = [await requestOf(a), await requestOf(b)];
    await addDocument(gateway, broker, { tenderId: tender.id, kind: 'RISK' });
    await addDocument(gateway, broker, { tenderId: tender.id, kind: 'OTHER' });
    await addDocument(gateway, insurerA, { tenderId: tender.id, kind: 'QUOTE', quoteRequestId: requestA });
    await addDocument(gateway, insurerB, { tenderId: tender.id, kind: 'QUOTE', quoteRequestId: requestB });
    return tender;
  }

  const linksOf = async (token: string, tenderId: string): Promise<{ id: string; kind: string; downloadUrl: string }[]> => {
    const { body } = await graphql(gateway, token, LINKS, { id: tenderId });
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return body.data.tender.documents;
  };

  /** What each link answers, fetched as a browser would (following the S3 store's redirect). */
  const statuses = async (links: { downloadUrl: string }[]) => {
    const answers: number[] = [];
    for (const link of links) {
      const response = await fetch(link.downloadUrl);
      await response.arrayBuffer();
      answers.push(response.status);
    }
    return answers;
  };

  it("an insurer's links to the risk file and its own quote document open nothing once the tender is closed, and again once reopened", async () => {
    const tender = await quotedTender();
    const links = await linksOf(insurerA, tender.id);
    expect(links.map((link) => link.kind)).toEqual(['RISK', 'OTHER', 'QUOTE']);
    expect(await statuses(links)).toEqual([200, 200, 200]);

    const closed = await graphql(
      gateway,
      broker,
      'mutation ($id: ID!) { closeTender(tenderId: $id, reason: "no cover needed") { status } }',
      {
        id: tender.id,
      },
    );
    expect(closed.body.data?.closeTender.status).toBe('CLOSED');
    expect(await statuses(links)).toEqual([404, 404, 404]);
    // The broker's links, handed out at the same time, still open: the rule is the holder's.
    expect(await statuses(await linksOf(broker, tender.id))).toEqual([200, 200, 200, 200]);

    const reopened = await graphql(gateway, broker, 'mutation ($id: ID!) { reopenTender(tenderId: $id, reason: "again") { status } }', {
      id: tender.id,
    });
    expect(reopened.body.data?.reopenTender.status).toBe('REOPENED');
    expect(await statuses(links)).toEqual([200, 200, 200]);
  });

  it("a won tender: the loser's quote link and the winner's risk links open nothing; the winner's POLICY link opens", async () => {
    const tender = await quotedTender();
    const [a, b] = world.insurers;
    const linksA = await linksOf(insurerA, tender.id);
    const linksB = await linksOf(insurerB, tender.id);
    await addDocument(gateway, internal, { tenderId: tender.id, kind: 'POLICY' }, PDF);
    await gateway.em().nativeUpdate(Tender, { id: tender.id }, { status: TenderStatus.SUCCESSFUL, awardedInsurer: a.id });
    const policy = (await linksOf(insurerA, tender.id)).filter((link) => link.kind === 'POLICY');
    expect(policy).toHaveLength(1);
    // A: RISK and OTHER no longer (the tender is not open), its own QUOTE still; B sees nothing of a tender it lost.
    expect(await statuses(linksA)).toEqual([404, 404, 200]);
    expect(await statuses(linksB)).toEqual([404, 404, 404]);
    expect(await statuses(policy)).toEqual([200]);
    // Had the award gone to B after all, A's POLICY link would open nothing.
    await gateway.em().nativeUpdate(Tender, { id: tender.id }, { awardedInsurer: b.id });
    expect(await statuses(policy)).toEqual([404]);
  });

  it("an ADVICE document's link opens for the broker it was given to, and a link names its holder: another's party opens nothing", async () => {
    const tender = await quotedTender();
    const exported = await graphql(
      gateway,
      broker,
      'mutation ($id: ID!) { exportProposal(tenderId: $id, format: JSON) { document { id downloadUrl } } }',
      {
        id: tender.id,
      },
    );
    const link: string = exported.body.data.exportProposal.document.downloadUrl;
    expect(await statuses([{ downloadUrl: link }])).toEqual([200]);
    const other = link.replace(`.broker.${world.brokers[0].id}.`, `.broker.${world.brokers[1].id}.`);
    expect(other).not.toBe(link);
    expect(await statuses([{ downloadUrl: other }])).toEqual([404]);
  });

  it('document content and links answer If-None-Match: * , a list naming the tag, and its weak form with 304; another tag with the bytes', async () => {
    const tender = await createTender(gateway.em(), world, {});
    const id = await addDocument(gateway, broker, { tenderId: tender.id, kind: 'RISK' });
    const [link] = await linksOf(broker, tender.id);
    const tag = `"${sha256(PDF)}"`;
    const content = `${gateway.url}/api/v1/tenders/${tender.id}/documents/${id}/content`;
    const ask = async (url: string, ifNoneMatch: string, token?: string) => {
      const response = await fetch(url, {
        headers: { 'if-none-match': ifNoneMatch, ...(token ? { authorization: `Bearer ${token}` } : {}) },
        redirect: 'manual',
      });
      await response.arrayBuffer();
      return [response.status, response.headers.get('etag')];
    };
    // The bytes themselves: 200 from the filesystem store, the S3 store's redirect.
    const sent = store === 'filesystem' ? 200 : 302;
    for (const [url, token] of [
      [content, broker],
      [link.downloadUrl, undefined],
    ] as const) {
      expect(await ask(url, '*', token)).toEqual([304, tag]);
      expect(await ask(url, ` "other", ${tag} `, token)).toEqual([304, tag]);
      expect(await ask(url, `W/${tag}`, token)).toEqual([304, tag]);
      expect(await ask(url, `"a,b", W/${tag}`, token)).toEqual([304, tag]);
      expect(await ask(url, '"other", W/"another"', token)).toEqual([sent, tag]);
      expect(await ask(url, sha256(PDF), token)).toEqual([sent, tag]);
    }
    // `*` says nothing for a document the viewer may not see: still a 404.
    const other = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[1].id });
    expect((await ask(content, '*', other))[0]).toBe(404);
  });
});
