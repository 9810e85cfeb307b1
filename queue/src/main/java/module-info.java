/** Ferrite's inter-process queue: a lock-free ring of messages in a pool's segment. */
module dev.ferrite.queue {
    requires transitive dev.ferrite;
    requires java.management;

    exports dev.ferrite.queue;
}
