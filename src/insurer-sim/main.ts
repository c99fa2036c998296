import { createServer } from 'node:http';
import { InsurerSimulator, SIM_BEHAVIOURS, type SimBehaviour, type SimInsurerOptions } from './insurer-sim';

/**
 * `npm run insurer-sim`: the reference insurer system on its own port.
 *   SIM_PORT=4100 GATEWAY_URL=http://localhost:4000 \
 *   SIM_INSURERS="acme:<app_id>:<secret>[:<behaviour>[:<pricing factor>]],..." npm run insurer-sim
 */
function parseInsurers(spec: string | undefined): SimInsurerOptions[] {
  if (!spec) throw new Error('SIM_INSURERS is required: slug:app_id:secret[:behaviour[:pricing factor]], comma separated');
  return spec.split(',').map((entry) => {
    const [slug, appId, secret, behaviour = 'quote', factor = '1'] = entry.split(':');
    if (!slug || !appId || !secret) throw new Error(`SIM_INSURERS entry "${entry}" needs slug:app_id:secret`);
    if (!SIM_BEHAVIOURS.includes(behaviour as SimBehaviour))
      throw new Error(`unknown behaviour "${behaviour}"; one of ${SIM_BEHAVIOURS.join(', ')}`);
    const pricingFactor = Number(factor);
    if (!(pricingFactor > 0)) throw new Error(`pricing factor "${factor}" must be a positive number`);
    return { slug, appId, secret, behaviour: behaviour as SimBehaviour, pricingFactor };
  });
}

try {
  const port = Number(process.env.SIM_PORT ?? 4100);
  const gatewayUrl = process.env.GATEWAY_URL ?? 'http://localhost:4000';
  const insurers = parseInsurers(process.env.SIM_INSURERS);
  const simulator = new InsurerSimulator({ gatewayUrl, insurers, quoteDelayMs: Number(process.env.SIM_QUOTE_DELAY_MS ?? 500) });
  const server = createServer(simulator.app).listen(port, () => {
    console.log(`Insurer simulator on http://localhost:${port}, calling back ${gatewayUrl}`);
    for (const insurer of insurers)
      console.log(`  ${insurer.slug}: quote API http://localhost:${port}/insurers/${insurer.slug} (${insurer.behaviour})`);
  });
  const stop = async () => {
    await simulator.close();
    server.close(() => process.exit(0));
  };
  const stopOrFail = () =>
    void stop().catch((error: unknown) => {
      console.error('The simulator did not stop cleanly:', error);
      process.exit(1);
    });
  process.once('SIGINT', stopOrFail);
  process.once('SIGTERM', stopOrFail);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
