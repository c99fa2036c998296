/** The face of insurers: the entity, its GraphQL resolver and the service the operator CLI creates insurers with. */
export { Insurer, InsurerIntegration } from './insurer.entity';
export { InsurerService } from './insurer.service';
// module.ts: what the composition (the schema, the database) takes of the feature
export { insurersModule } from './module';
