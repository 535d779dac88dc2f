/** The service's validated configuration (KarpenterGatewayConfig). */
export const KARPENTER_GATEWAY_CONFIG = Symbol('KARPENTER_GATEWAY_CONFIG');
