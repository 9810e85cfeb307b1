package dev.ferrite.bench.report;

/**
 * What the report knows about one benchmark method: which experiment and operation it measures,
 * how to label it, whether it is its operation's baseline, and how many items one invocation
 * handles (to show a per-item time).
 *
 * @param experiment   the seed experiment
 * @param operation    the operation within it
 * @param label        the variant, as a reader would name it
 * @param ferrite      whether it measures Ferrite (else a peer)
 * @param baseline     whether the ratios of its operation are to it
 * @param itemsParam   the JMH parameter holding items per invocation, or null
 * @param itemsFixed   items per invocation when no parameter says, at least 1
 * @param itemUnit     what an item is, for the per-item column
 */
record Entry(String experiment, String operation, String label, boolean ferrite, boolean baseline, String itemsParam,
             long itemsFixed, String itemUnit) {

    /**
     * @return whether this variant stands for its backend in the summary: Ferrite's plain call, not
     *         a batch, a many-producer queue, a zero-copy read, a run with checks off or a map built
     *         with a load factor other than the default
     */
    boolean representsBackend() {
        return ferrite && !label.contains("checks off") && !label.contains("offerBatch") && !label.contains("many-producer")
                && !label.contains("zero-copy") && !label.contains("loadFactor(");
    }

    /**
     * @param operation another operation name
     * @return this entry under that operation
     */
    Entry withOperation(String operation) {
        return new Entry(experiment, operation, label, ferrite, baseline, itemsParam, itemsFixed, itemUnit);
    }
}
