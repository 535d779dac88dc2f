import { MessagePattern, Payload } from '@nestjs/microservices';
import { Commands, type CommandRequest } from '@nodes-manager/contracts';
import { CommandController, notImplemented } from '@nodes-manager/platform';

/** KarpenterGatewayCommands — the karpenter-gateway service's commands on `nodes-manager.karpenter-gateway`. */
@CommandController()
export class KarpenterGatewayCommands {
  @MessagePattern(Commands.nodepoolsList)
  list(@Payload() _req: CommandRequest) {
    throw notImplemented('nodepools.list');
  }

  @MessagePattern(Commands.nodepoolGet)
  get(@Payload() _req: CommandRequest) {
    throw notImplemented('nodepool.get');
  }

  @MessagePattern(Commands.nodepoolCreate)
  create(@Payload() _req: CommandRequest) {
    throw notImplemented('nodepool.create');
  }

  @MessagePattern(Commands.nodepoolUpdate)
  update(@Payload() _req: CommandRequest) {
    throw notImplemented('nodepool.update');
  }

  @MessagePattern(Commands.nodepoolDelete)
  remove(@Payload() _req: CommandRequest) {
    throw notImplemented('nodepool.delete');
  }

  @MessagePattern(Commands.nodeclaimsList)
  nodeclaims(@Payload() _req: CommandRequest) {
    throw notImplemented('nodeclaims.list');
  }

  @MessagePattern(Commands.nodepoolConsolidate)
  consolidate(@Payload() _req: CommandRequest) {
    throw notImplemented('nodepool.consolidate');
  }

}
