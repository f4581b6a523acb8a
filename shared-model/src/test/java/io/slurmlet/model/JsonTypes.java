package io.slurmlet.model;

import io.slurmlet.model.settings.SettingKey;
import io.slurmlet.model.settings.SlurmSettings;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The classes Jackson maps and the classes registered for reflection, found by walking the compiled
 * classes of a package (a build folder or a jar). For the agent's and ctl's tests that every JSON
 * type is registered for a native build (shared-model's test-jar; Quarkus's annotation is read by
 * name, since the shared model does not depend on Quarkus).
 */
public final class JsonTypes {

    static final String REGISTER_FOR_REFLECTION = "io.quarkus.runtime.annotations.RegisterForReflection";

    /** The shared model's types that are never JSON: the keys {@code ctl slurm set} takes, their kinds, a plan's JSON in pieces, a parsed SSH key. */
    public static final Set<Class<?>> NOT_JSON = Set.of(
            SettingKey.class,
            SettingKey.Kind.class,
            io.slurmlet.model.plan.PlanJson.class,
            io.slurmlet.model.users.SshPublicKey.class);

    private JsonTypes() {}

    /** Every record and enum of the shared model, and every class of it with Jackson annotations, but {@link #NOT_JSON}. */
    public static Set<Class<?>> ofModel() throws Exception {
        Set<Class<?>> found = new LinkedHashSet<>();
        for (Class<?> c : classesUnder("io.slurmlet.model", SlurmSettings.class)) {
            if (!c.isAnonymousClass()
                    && !c.isSynthetic()
                    && !NOT_JSON.contains(c)
                    && (c.isRecord() || c.isEnum() || annotated(c))) {
                found.add(c);
                found.addAll(serializers(c));
            }
        }
        return found;
    }

    /** The serializer and deserializer a class names for itself ({@code @JsonSerialize(using = …)}): Jackson makes them by reflection. */
    static List<Class<?>> serializers(Class<?> c) {
        List<Class<?>> own = new ArrayList<>();
        com.fasterxml.jackson.databind.annotation.JsonSerialize ser =
                c.getAnnotation(com.fasterxml.jackson.databind.annotation.JsonSerialize.class);
        if (ser != null && ser.using() != com.fasterxml.jackson.databind.JsonSerializer.None.class) {
            own.add(ser.using());
        }
        com.fasterxml.jackson.databind.annotation.JsonDeserialize de =
                c.getAnnotation(com.fasterxml.jackson.databind.annotation.JsonDeserialize.class);
        if (de != null && de.using() != com.fasterxml.jackson.databind.JsonDeserializer.None.class) {
            own.add(de.using());
        }
        return own;
    }

    /**
     * The classes under {@code pkg} with Jackson annotations, and the slurmlet records, enums and
     * annotated classes their fields hold, and theirs in turn.
     */
    public static Set<Class<?>> annotatedUnder(String pkg, Class<?> anyOfThem) throws Exception {
        Deque<Class<?>> todo = new ArrayDeque<>();
        for (Class<?> c : classesUnder(pkg, anyOfThem)) {
            if (annotated(c)) {
                todo.add(c);
            }
        }
        Set<Class<?>> found = new LinkedHashSet<>();
        while (!todo.isEmpty()) {
            Class<?> c = todo.pop();
            if (!found.add(c)) {
                continue;
            }
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                Set<Class<?>> held = new LinkedHashSet<>();
                classesIn(f.getGenericType(), held);
                for (Class<?> h : held) {
                    if (h.getName().startsWith("io.slurmlet.") && (h.isRecord() || h.isEnum() || annotated(h))) {
                        todo.add(h);
                    }
                }
            }
        }
        return found;
    }

    /** What the {@code @RegisterForReflection} annotations of the classes under {@code pkg} register. */
    public static Set<Class<?>> registeredUnder(String pkg, Class<?> anyOfThem) throws Exception {
        Set<Class<?>> registered = new HashSet<>();
        for (Class<?> c : classesUnder(pkg, anyOfThem)) {
            for (Annotation r : c.getDeclaredAnnotations()) {
                if (!r.annotationType().getName().equals(REGISTER_FOR_REFLECTION)) {
                    continue;
                }
                Class<?>[] targets =
                        (Class<?>[]) r.annotationType().getMethod("targets").invoke(r);
                String[] names =
                        (String[]) r.annotationType().getMethod("classNames").invoke(r);
                if (targets.length == 0 && names.length == 0) {
                    registered.add(c);
                }
                registered.addAll(List.of(targets));
                for (String name : names) {
                    registered.add(Class.forName(name, false, c.getClassLoader()));
                }
            }
        }
        return registered;
    }

    /** Whether Jackson's annotations are on the class, a field, a method, a constructor or a parameter of it. */
    static boolean annotated(Class<?> c) {
        List<AnnotatedElement> elements = new ArrayList<>(List.of(c));
        elements.addAll(List.of(c.getDeclaredFields()));
        for (Executable e : Stream.concat(
                        Arrays.stream(c.getDeclaredMethods()), Arrays.stream(c.getDeclaredConstructors()))
                .toList()) {
            elements.add(e);
            elements.addAll(List.of(e.getParameters()));
        }
        return elements.stream()
                .flatMap(e -> Arrays.stream(e.getDeclaredAnnotations()))
                .anyMatch(a -> a.annotationType().getPackageName().equals("com.fasterxml.jackson.annotation"));
    }

    /** Every class under {@code pkg} in the build folder or jar that {@code anyOfThem} was loaded from. */
    static List<Class<?>> classesUnder(String pkg, Class<?> anyOfThem) throws Exception {
        Path source = Path.of(
                anyOfThem.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (FileSystem jar = Files.isDirectory(source) ? null : FileSystems.newFileSystem(source)) {
            Path root = jar == null ? source : jar.getPath("/");
            List<Class<?>> classes = new ArrayList<>();
            try (Stream<Path> files = Files.walk(root.resolve(pkg.replace('.', '/')))) {
                for (Path file : (Iterable<Path>) files::iterator) {
                    String name = root.relativize(file).toString();
                    if (name.endsWith(".class") && !name.endsWith("package-info.class")) {
                        classes.add(Class.forName(
                                name.substring(0, name.length() - ".class".length())
                                        .replace('/', '.'),
                                false,
                                anyOfThem.getClassLoader()));
                    }
                }
            }
            return classes;
        }
    }

    private static void classesIn(Type type, Set<Class<?>> into) {
        if (type instanceof Class<?> c) {
            if (c.isArray()) {
                classesIn(c.getComponentType(), into);
            } else {
                into.add(c);
            }
        } else if (type instanceof ParameterizedType p) {
            classesIn(p.getRawType(), into);
            for (Type argument : p.getActualTypeArguments()) {
                classesIn(argument, into);
            }
        } else if (type instanceof WildcardType w) {
            for (Type bound : w.getUpperBounds()) {
                classesIn(bound, into);
            }
        }
    }
}
