/** The face of insurers: the entity, its GraphQL resolver and the service the operator CLI creates insurers with. */
export { Insurer, InsurerIntegration } from './insurer.entity';
export { InsurerResolver } from './insurer.resolver';
export { InsurerService } from './insurer.service';
