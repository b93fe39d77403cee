package dev.warmpool.reconcile;

import dev.warmpool.policy.PoolSnapshot;
import dev.warmpool.runtime.Devices;
import dev.warmpool.runtime.ProcessorRuntime;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Never more processors than free devices: of the processors (or gangs) a pass would start for a
 * pool whose template asks for {@code nvidia.com/gpu}, only as many as the free devices serve.
 * A pool that has to wait says so in the log, once each time its reason changes.
 */
final class DeviceGate {
    private static final Logger LOG = Logger.getLogger(DeviceGate.class);

    private final ProcessorRuntime runtime;
    /** The last reason each waiting pool was given. */
    private final Map<String, String> said = new ConcurrentHashMap<>();

    DeviceGate(ProcessorRuntime runtime) {
        this.runtime = runtime;
    }

    /** How many of {@code wanted} processors (gangs, in a gang pool) of the pool may start now. */
    int allow(PoolSnapshot s, int wanted) {
        Optional<Devices> ofRuntime = runtime.devices(s.spec());
        if (ofRuntime.isEmpty()) {
            return wanted;
        }
        Devices devices = ofRuntime.get();
        int members = s.spec().isGang() ? s.spec().members().size() : 1;
        int each = Devices.perProcessor(s.spec()) * members;
        int can = devices.startable(each, wanted);
        if (can < wanted) {
            String why = "pool " + s.type() + " waits for devices: it wants " + wanted + " more "
                    + (s.spec().isGang() ? "gang(s)" : "processor(s)") + " of " + each + " " + Devices.GPU
                    + " each; the machine has " + devices.all().size() + ", " + devices.free()
                    + " free, enough for " + can;
            if (!why.equals(said.put(s.type(), why))) {
                LOG.info(why);
            }
        } else if (said.remove(s.type()) != null) {
            LOG.infof("pool %s has the devices it asks for", s.type());
        }
        return can;
    }
}
